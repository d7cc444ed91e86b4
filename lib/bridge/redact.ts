const REDACTED = '[redacted]';
/** Shorter strings are not searched for: redacting "on" everywhere would garble every line (as the process log does). */
const MIN_SECRET_LENGTH = 8;

/**
 * The secrets in a remote server's headers: each value, and each word of it (`Bearer sk-…` is also redacted where
 * only the token appears).
 */
export function headerSecrets(headers: Readonly<Record<string, string>> = {}): string[] {
  const secrets = Object.values(headers).flatMap((value) => [value.trim(), ...value.split(/\s+/)]);
  return [...new Set(secrets.filter((secret) => secret.length >= MIN_SECRET_LENGTH))].sort((a, b) => b.length - a.length);
}

/**
 * A function that replaces every secret in a text with `[redacted]`: what the bridge writes to its log or reports to
 * the space passes through it, so a header value the server or the SDK echoes in an error goes nowhere.
 *
 * @example
 * const redact = redactor(headerSecrets({ Authorization: 'Bearer sk-0123456789' }));
 * redact('HTTP 401: bad token sk-0123456789'); // 'HTTP 401: bad token [redacted]'
 */
export function redactor(secrets: readonly string[]): (text: string) => string {
  if (secrets.length === 0) return (text) => text;
  // Longest first, so a value is replaced whole before any of its words.
  return (text) => secrets.reduce((out, secret) => out.split(secret).join(REDACTED), text);
}
