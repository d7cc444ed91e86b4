import type { ErrorCode } from '../protocol';

/** A refusal with a stable code; becomes a `system/error` on the socket or a JSON body over HTTP. */
export class GatewayError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    /** Extra payload fields of the `system/error` (e.g. `attempted_kind`, `retry_after_ms`, `issues`). */
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'GatewayError';
  }
}
