'use client';

import { useEffect } from 'react';

/** Registers the service worker (public/sw.js): installability, and Web Push notifications with no tab open. */
export function ServiceWorker(): null {
  useEffect(() => {
    if ('serviceWorker' in navigator) navigator.serviceWorker.register('/sw.js').catch(() => undefined); // optional: the page works without it
  }, []);
  return null;
}
