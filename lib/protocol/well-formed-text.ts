/**
 * Whether a string is well-formed UTF-16 (no lone surrogate). JSON can carry a lone surrogate (`"\ud800"`), but
 * UTF-8 cannot: stored or sent as UTF-8 it becomes U+FFFD, so the text read back differs from the text received.
 * Envelope fields the gateway stores and indexes (ids, participant ids, contexts) must not change in transit.
 */
export function isWellFormedText(text: string): boolean {
  return text.isWellFormed();
}

/** The string with each lone surrogate replaced by U+FFFD, as UTF-8 storage would turn it. */
export function toWellFormedText(text: string): string {
  return text.toWellFormed();
}
