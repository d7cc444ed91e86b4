/**
 * Between progress notifications while a call waits (for approval, for a human's answer): clients that reset their
 * request timeout on progress (the official SDK's `resetTimeoutOnProgress`) keep waiting; 10 s is well inside every
 * client's default timeout.
 */
export const PROGRESS_EVERY_MS = 10_000;

/** What a tool call is handed by the MCP server: its cancellation, and how to tell the client it is still waiting. */
export interface CallContext {
  signal: AbortSignal;
  /** The client's `_meta.progressToken`: without one, the client asked for no progress. */
  progressToken?: string | number;
  notify(notification: { method: 'notifications/progress'; params: Record<string, unknown> }): Promise<void>;
}

/**
 * Sends `notifications/progress` now and every `PROGRESS_EVERY_MS` (when the client gave a progress token), with
 * `message()` as it reads then; returns the way to stop.
 */
export function reportWhileWaiting(call: CallContext, message: () => string): () => void {
  const { progressToken } = call;
  if (progressToken === undefined) return () => undefined;
  let step = 0;
  const report = () =>
    void call.notify({ method: 'notifications/progress', params: { progressToken, progress: step++, message: message() } }).catch(() => undefined);
  report();
  const timer = setInterval(report, PROGRESS_EVERY_MS);
  return () => clearInterval(timer);
}
