import { seconds } from './with-timeout';

/** The server's refusal: its message, with its error code (`unknown_subscription`, …) and HTTP status. */
export class SpaceApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code?: string,
  ) {
    super(message);
    this.name = 'SpaceApiError';
  }
}

/** How long a call to the space's API may take before the button that made it says it got no answer. */
export const SPACE_API_TIMEOUT_MS = 15_000;

/**
 * Calls one of the gateway's `/api/spaces/{space}/…` endpoints with the signed-in participant's token; resolves with
 * the JSON body, or rejects with the server's refusal (`SpaceApiError`), or after `timeoutMs` without an answer.
 */
export async function spaceApi<T>(space: string, token: string, path: string, init: { method?: string; body?: unknown; timeoutMs?: number } = {}): Promise<T> {
  const timeoutMs = init.timeoutMs ?? SPACE_API_TIMEOUT_MS;
  let response: Response;
  try {
    response = await fetch(`/api/spaces/${encodeURIComponent(space)}${path}`, {
      method: init.method ?? 'GET',
      headers: { Authorization: `Bearer ${token}`, ...(init.body !== undefined && { 'Content-Type': 'application/json' }) },
      ...(init.body !== undefined && { body: JSON.stringify(init.body) }),
      cache: 'no-store',
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (e) {
    const error = e as Error;
    throw new Error(
      error.name === 'TimeoutError' ? `no answer from the server within ${seconds(timeoutMs)}` : `the server could not be reached (${error.message})`,
    );
  }
  const body = await response.json().catch(() => ({}));
  if (!response.ok) {
    const message = typeof body.message === 'string' ? body.message : `HTTP ${response.status}`;
    throw new SpaceApiError(message, response.status, typeof body.error === 'string' ? body.error : undefined);
  }
  return body as T;
}
