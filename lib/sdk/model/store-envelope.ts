import type { AnyEnvelope } from '../../protocol';

/**
 * An envelope as the model accepts it: a valid envelope, as `MEWClient` delivers it (parsed and validated once,
 * on arrival; catch-up from history arrives the same way). Payload fields the protocol leaves loose are still
 * read defensively.
 */
export type StoreEnvelope = AnyEnvelope;

/** A JSON object (not an array, not null). */
export type JsonObject = Record<string, unknown>;

/** Whether `value` is a JSON object. */
export function isRecord(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Whether `value` has the fields every envelope needs to be tracked (an id to dedupe by, a kind, a sender). */
export function isStoreEnvelope(value: unknown): value is StoreEnvelope {
  return isRecord(value) && typeof value.id === 'string' && value.id !== '' && typeof value.kind === 'string' && typeof value.from === 'string';
}

/** The payload as an object (`{}` when absent or not an object). */
export function payloadOf(envelope: StoreEnvelope): JsonObject {
  return isRecord(envelope.payload) ? envelope.payload : {};
}

/** A string field, or undefined. */
export function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** A finite number field, or undefined. */
export function num(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/** An array of strings (non-strings dropped), or undefined. */
export function strings(value: unknown): string[] | undefined {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : undefined;
}

/** Parses an RFC 3339 string or epoch-ms number into epoch ms. */
export function parseTime(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value !== 'string') return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : ms;
}

/**
 * When the envelope happened, in epoch ms: its `ts` (filled in by the gateway, so history catch-up keeps true
 * times), else `fallback` (the time of ingestion).
 */
export function envelopeTime(envelope: StoreEnvelope, fallback: number): number {
  return parseTime(envelope.ts) ?? fallback;
}

/** Whether the envelope names `participant` in `to`. */
export function isAddressedTo(envelope: StoreEnvelope, participant: string | undefined): boolean {
  return participant !== undefined && (envelope.to?.includes(participant) ?? false);
}

/** The envelope's `correlation_id` (always an array; `[]` when absent). */
export function correlationIds(envelope: StoreEnvelope): readonly string[] {
  return Array.isArray(envelope.correlation_id) ? envelope.correlation_id : [];
}
