import { z } from 'zod';
import { KINDS, type Kind, type OptionalPayloadKind } from './kinds';
import type { PayloadOf } from './payloads';
import { PROTOCOL_VERSION } from './version';
import { isWellFormedText } from './well-formed-text';

/**
 * RFC 3339 `date-time`: `T`/`t` separator, optional fractional seconds, `Z`/`z` or a `±hh:mm` offset,
 * leap second 60 allowed. Shared by the zod schema and the hand-written fast path so both agree.
 */
export const RFC3339_PATTERN =
  /^\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])[Tt](?:[01]\d|2[0-3]):[0-5]\d:(?:[0-5]\d|60)(?:\.\d+)?(?:[Zz]|[+-](?:[01]\d|2[0-3]):[0-5]\d)$/;

const nonEmptyString = z
  .string()
  .min(1, 'must not be empty')
  .refine(isWellFormedText, 'must be well-formed Unicode (a lone surrogate would not survive storage)');

const envelopeShape = {
  /** MUST be `"mew/v0.4"` for this version (spec §3); v0.4 is not backward compatible (§6.1). */
  protocol: z.literal(PROTOCOL_VERSION, {
    error: (issue) =>
      issue.input === undefined ? undefined : `unsupported protocol ${JSON.stringify(issue.input)}: this gateway speaks "${PROTOCOL_VERSION}"`,
  }),
  /** Globally unique message id (e.g. UUIDv4). */
  id: nonEmptyString,
  /** RFC 3339 timestamp. */
  ts: z.string().regex(RFC3339_PATTERN, 'must be an RFC 3339 timestamp, e.g. "2025-08-26T14:00:00Z"'),
  /** Stable participant id within the space; the gateway MUST verify it matches the authenticated participant. */
  from: nonEmptyString,
  /** Participant ids who must act on it; empty or omitted = broadcast. */
  to: z.array(nonEmptyString).optional(),
  /** Message type (see `KINDS`); the method of MCP messages is in `payload.method`. */
  kind: z.enum(KINDS, {
    error: (issue) => (typeof issue.input === 'string' ? `unknown kind ${JSON.stringify(issue.input)}` : undefined),
  }),
  /** Ids of the messages this one relates to; always an array, even for a single value. */
  correlation_id: z.array(nonEmptyString).optional(),
  /** Context or sub-context, as a slash path (`"parent/child"`); e.g. the id of a `reasoning/start`. */
  context: z.string().refine(isWellFormedText, 'must be well-formed Unicode (a lone surrogate would not survive storage)').optional(),
  /** Kind-specific body, validated by `payloadSchemas[kind]` (some kinds MAY omit it). */
  payload: z.unknown().optional(),
  /**
   * Where the envelope stands in its space's history, set by the gateway on everything it delivers (opaque to
   * clients: a client hands the last one it saw back as `after=` to receive what it missed). Never sent by clients.
   */
  cursor: nonEmptyString.optional(),
};

/** The envelope as it travels between gateway and participants (spec §3). Unknown top-level fields are refused. */
export const envelopeSchema = z.strictObject(envelopeShape);

/**
 * An envelope as a client may submit it: `protocol`, `id`, `ts` and `from` may be omitted and are filled in by
 * the gateway; when present they are checked like the full envelope's. `cursor` is the gateway's alone.
 */
export const inboundEnvelopeSchema = envelopeSchema.omit({ cursor: true }).partial({ protocol: true, id: true, ts: true, from: true });

/** The fields every envelope shares, whatever its kind. */
export type EnvelopeBase = Omit<z.infer<typeof envelopeSchema>, 'kind' | 'payload'>;
export type InboundEnvelopeBase = Omit<z.infer<typeof inboundEnvelopeSchema>, 'kind' | 'payload'>;

type Simplify<T> = { [P in keyof T]: T[P] } & {};

type KindAndPayload<K extends Kind> = K extends OptionalPayloadKind
  ? { kind: K; payload?: Exclude<PayloadOf<K>, undefined> }
  : { kind: K; payload: PayloadOf<K> };

/** A valid envelope of kind `K`; with the default `K` a union discriminated on `kind`. */
export type Envelope<K extends Kind = Kind> = { [P in K]: Simplify<EnvelopeBase & KindAndPayload<P>> }[K];

/** Every valid envelope, discriminated on `kind`: `if (env.kind === 'chat') env.payload.text`. */
export type AnyEnvelope = Envelope;

/** A valid client-submitted envelope of kind `K` (gateway-filled fields optional). */
export type InboundEnvelope<K extends Kind = Kind> = {
  [P in K]: Simplify<InboundEnvelopeBase & KindAndPayload<P>>;
}[K];
