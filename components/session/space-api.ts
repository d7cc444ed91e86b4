/**
 * Calls one of the gateway's `/api/spaces/{space}/…` endpoints with the signed-in participant's token; resolves with
 * the JSON body, or rejects with the server's message.
 */
export async function spaceApi<T>(space: string, token: string, path: string, init: { method?: string; body?: unknown } = {}): Promise<T> {
  const response = await fetch(`/api/spaces/${encodeURIComponent(space)}${path}`, {
    method: init.method ?? 'GET',
    headers: { Authorization: `Bearer ${token}`, ...(init.body !== undefined && { 'Content-Type': 'application/json' }) },
    ...(init.body !== undefined && { body: JSON.stringify(init.body) }),
    cache: 'no-store',
  });
  const body = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(typeof body.message === 'string' ? body.message : `HTTP ${response.status}`);
  return body as T;
}
