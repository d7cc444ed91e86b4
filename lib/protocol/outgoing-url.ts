import { z } from 'zod';

/** Longest URL accepted for a push endpoint or a webhook (push services use a few hundred characters). */
export const MAX_OUTGOING_URL_CHARS = 2048;

const LOOPBACK_HOSTS: ReadonlySet<string> = new Set(['127.0.0.1', '[::1]', 'localhost']);

/**
 * A URL the server will POST to: https, or http on the loopback interface only (a push service or receiver a test
 * runs). Plain http elsewhere would send proposals and signed action links in clear text.
 */
export const outgoingUrlSchema = z
  .string()
  .max(MAX_OUTGOING_URL_CHARS)
  .refine((text) => {
    const url = URL.canParse(text) ? new URL(text) : undefined;
    return url !== undefined && !url.username && !url.password && (url.protocol === 'https:' || (url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname)));
  }, 'must be an https URL (plain http only on 127.0.0.1, [::1] or localhost)');

/** A URL as shown to people: its origin and the end of its path, since the rest of a webhook or push URL is its secret. */
export function maskedUrl(text: string): string {
  const url = new URL(text);
  const tail = `${url.pathname}${url.search}`;
  return tail.length <= 1 ? url.origin : `${url.origin}/…${tail.slice(-4)}`;
}
