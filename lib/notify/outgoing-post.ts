/** What became of one outgoing POST: the receiver's status, or why there was none. */
export type PostOutcome = { status: number; error?: string } | { status?: undefined; error: string };

/**
 * POSTs to a push service or a webhook receiver, giving up after `timeoutMs`; never throws. Redirects are refused:
 * one could lead a loopback-only http URL elsewhere. The error names the cause, never the URL (its path is a secret).
 */
export async function postOutgoing(
  url: string,
  init: { headers: Record<string, string>; body: Uint8Array<ArrayBuffer> | string },
  timeoutMs: number,
): Promise<PostOutcome> {
  try {
    const response = await fetch(url, { method: 'POST', ...init, signal: AbortSignal.timeout(timeoutMs), redirect: 'error' });
    await response.body?.cancel();
    return { status: response.status, ...(!response.ok && { error: `HTTP ${response.status}` }) };
  } catch (e) {
    const error = e as Error;
    return { error: error.name === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : ((error.cause as Error | undefined)?.message ?? error.message) };
  }
}
