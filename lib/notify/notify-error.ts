import { GatewayError } from '../gateway/gateway-error';

/** zod issues as the other endpoints list them (`path`, `message`), in the refusal that carries them. */
export function invalidInput(
  code: 'invalid_subscription' | 'invalid_webhook',
  what: string,
  issues: readonly { path: PropertyKey[]; message: string }[],
): GatewayError {
  const listed = issues.map((i) => ({ path: i.path.map((p) => (typeof p === 'symbol' ? String(p) : p)), message: i.message }));
  const [first] = listed;
  return new GatewayError(code, `invalid ${what}: ${first?.path.join('.') || `(${what})`}: ${first?.message ?? 'malformed'}`, { issues: listed });
}
