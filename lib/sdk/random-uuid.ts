/**
 * A v4 UUID for envelope ids. `crypto.randomUUID` exists only in secure contexts (https, localhost), so a
 * dashboard opened over plain http on a LAN address would lose it; `getRandomValues` works everywhere.
 *
 * @example
 * const id = randomUuid(); // '0b6c4f0e-3a1d-4a8e-9c1f-5d2e7b9a4c3d'
 */
export function randomUuid(): string {
  const crypto = globalThis.crypto;
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = (bytes[6] & 0x0f) | 0x40; // version 4
  bytes[8] = (bytes[8] & 0x3f) | 0x80; // RFC 4122 variant
  const hex = Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
