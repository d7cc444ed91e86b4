// The control room's service worker: makes the app installable and shows Web Push notifications of proposals even
// with no tab open. A push carries {title, body, url, tag, actions?: [{action, title}], action_urls?: {action: url}};
// an action posts to its URL (a single-use token signed by the server for that proposal), anything else opens the page.

self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()));

self.addEventListener('push', (event) => {
  const push = event.data ? event.data.json() : {};
  event.waitUntil(
    self.registration.showNotification(push.title || 'MEW Dashboard', {
      body: push.body || '',
      tag: push.tag,
      icon: '/icon.svg',
      requireInteraction: true,
      actions: push.actions || [],
      data: { url: push.url || '/', action_urls: push.action_urls || {} },
    }),
  );
});

async function openPage(url) {
  const windows = await self.clients.matchAll({ type: 'window', includeUncontrolled: true });
  const open = windows.find((client) => new URL(client.url).pathname === new URL(url, self.location.origin).pathname);
  if (open) {
    await open.focus();
    return open.navigate(url);
  }
  return self.clients.openWindow(url);
}

async function act(url) {
  const response = await fetch(url, { method: 'POST' });
  const body = await response.json().catch(() => ({}));
  await self.registration.showNotification(response.ok ? 'Done' : 'Not done', { body: body.message || `HTTP ${response.status}`, icon: '/icon.svg' });
}

self.addEventListener('notificationclick', (event) => {
  const { url, action_urls: actionUrls } = event.notification.data || {};
  event.notification.close();
  const actionUrl = event.action && actionUrls ? actionUrls[event.action] : undefined;
  event.waitUntil(actionUrl ? act(actionUrl) : openPage(url || '/'));
});
