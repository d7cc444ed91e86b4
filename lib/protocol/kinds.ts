/**
 * The one list of envelope kinds (spec §3), plus three of our gateway's own: `space/invite-ack`, its answer to an
 * invite, `system/security-event`, a refusal of another participant told to operators, and `system/approval`, one
 * approval of a proposal whose tool needs several (the spec reserves `system/*` for the gateway, so other clients
 * may ignore them). Every other module derives its kind lists from here.
 */
export const KINDS = [
  'mcp/request',
  'mcp/response',
  'mcp/proposal',
  'mcp/withdraw',
  'mcp/reject',
  'reasoning/start',
  'reasoning/thought',
  'reasoning/conclusion',
  'reasoning/cancel',
  'capability/grant',
  'capability/revoke',
  'capability/grant-ack',
  'space/invite',
  'space/invite-ack',
  'space/kick',
  'participant/pause',
  'participant/resume',
  'participant/status',
  'participant/request-status',
  'participant/forget',
  'participant/compact',
  'participant/compact-done',
  'participant/clear',
  'participant/restart',
  'participant/shutdown',
  'stream/request',
  'stream/open',
  'stream/close',
  'chat',
  'chat/acknowledge',
  'chat/cancel',
  'system/presence',
  'system/welcome',
  'system/error',
  'system/security-event',
  'system/approval',
] as const;

export type Kind = (typeof KINDS)[number];

const KIND_SET: ReadonlySet<string> = new Set(KINDS);

export function isKind(value: unknown): value is Kind {
  return typeof value === 'string' && KIND_SET.has(value);
}

/** Spec §4.1: participants MUST NOT send any kind starting with this prefix, known or not. */
export const RESERVED_KIND_PREFIX = 'system/';

/** True for any `system/*` string, including kinds this version does not know (answer: `reserved_kind`). */
export function isReservedKind(kind: string): boolean {
  return kind.startsWith(RESERVED_KIND_PREFIX);
}

/** The `from` of what the gateway itself sends: welcomes, errors, and the controls it enforces (budget pauses). */
export const GATEWAY_ID = 'system:gateway';

/**
 * Kinds only the gateway emits: `system/*`, `stream/open` (spec §3.10.1: the gateway allocates stream ids)
 * and `space/invite-ack` (it carries the token the gateway minted). A participant sending one is refused.
 */
export const GATEWAY_ONLY_KINDS = [
  'system/presence',
  'system/welcome',
  'system/error',
  'system/security-event',
  'system/approval',
  'stream/open',
  'space/invite-ack',
] as const satisfies readonly Kind[];

export type GatewayOnlyKind = (typeof GATEWAY_ONLY_KINDS)[number];

/** {@link GATEWAY_ONLY_KINDS} as a set, for the per-message lookup. */
export const GATEWAY_EMITTED_KINDS: ReadonlySet<string> = new Set(GATEWAY_ONLY_KINDS);

export function isGatewayEmittedKind(kind: string): kind is GatewayOnlyKind {
  return GATEWAY_EMITTED_KINDS.has(kind);
}

/**
 * What a coalescing connection (`?coalesce=<ms>`) may receive late, batched with the rest of its window: the
 * high-rate traffic a supervisor watches but never has to act on at once. Text `#id#data` stream frames (not
 * envelopes) are routine too. Everything else is urgent and sent at once: proposals, withdrawals, rejections,
 * requests and responses, reasoning start/end, controls and their replies, grants, revocations, errors, welcomes.
 */
export const ROUTINE_KINDS = ['reasoning/thought', 'participant/status', 'chat', 'system/presence'] as const satisfies readonly Kind[];

const ROUTINE_KIND_SET: ReadonlySet<string> = new Set(ROUTINE_KINDS);

/**
 * Whether `envelope` is routine for participant `me`: a routine kind that is neither addressed to me (`to` names
 * me: a reply to my request, a chat awaiting my acknowledgement) nor my own echo (the confirmation of what I sent).
 * The one classification of routine and urgent traffic.
 */
export function isRoutineFor(envelope: { kind: string; from: string; to?: readonly string[] }, me: string): boolean {
  return ROUTINE_KIND_SET.has(envelope.kind) && envelope.from !== me && envelope.to?.includes(me) !== true;
}

/**
 * Spec §3.9 directives a coordinator sends to a target participant (named in `to`).
 * `participant/status` and `participant/compact-done` are the target's own reports, so they are not here.
 */
export const PARTICIPANT_CONTROL_KINDS = [
  'participant/pause',
  'participant/resume',
  'participant/request-status',
  'participant/forget',
  'participant/compact',
  'participant/clear',
  'participant/restart',
  'participant/shutdown',
] as const satisfies readonly Kind[];

export type ParticipantControlKind = (typeof PARTICIPANT_CONTROL_KINDS)[number];

const PARTICIPANT_CONTROL_KIND_SET: ReadonlySet<string> = new Set(PARTICIPANT_CONTROL_KINDS);

export function isParticipantControlKind(kind: string): kind is ParticipantControlKind {
  return PARTICIPANT_CONTROL_KIND_SET.has(kind);
}

/**
 * What a paused or shut-down participant may still send (spec §3.9.1: "acknowledgements or cancellations"):
 * replies that close loops others are waiting on, never new work.
 */
export const PAUSE_EXEMPT_KINDS = [
  'participant/status',
  'participant/compact-done',
  'chat/acknowledge',
  'chat/cancel',
  'reasoning/cancel',
  'stream/close',
  'mcp/response',
] as const satisfies readonly Kind[];

export type PauseExemptKind = (typeof PAUSE_EXEMPT_KINDS)[number];

// A set: the gateway asks this for every envelope it accepts.
const PAUSE_EXEMPT_KIND_SET: ReadonlySet<string> = new Set(PAUSE_EXEMPT_KINDS);

export function isPauseExemptKind(kind: string): kind is PauseExemptKind {
  return PAUSE_EXEMPT_KIND_SET.has(kind);
}

/** Spec §3.9.8–3.9.10 (and `{}` in §3.9.2): these kinds MAY omit `payload`; absent means `{}`. */
export const OPTIONAL_PAYLOAD_KINDS = [
  'participant/resume',
  'participant/clear',
  'participant/restart',
  'participant/shutdown',
] as const satisfies readonly Kind[];

export type OptionalPayloadKind = (typeof OPTIONAL_PAYLOAD_KINDS)[number];

/** An envelope field the spec makes mandatory for some kinds (it is optional on the envelope in general). */
export type RequiredEnvelopeField = 'correlation_id' | 'context';

/**
 * Kinds that MUST carry a field the envelope otherwise leaves optional: replies name what they answer
 * (`correlation_id`: §3.1.2, §3.3.1–2, §3.4.1–2, §3.9.7, which acknowledges a *requested* compaction), and
 * `reasoning/cancel` names the sequence it ends (`context`, §3.5.5). A map, so the check is one lookup per envelope.
 */
export const REQUIRED_ENVELOPE_FIELDS: ReadonlyMap<string, RequiredEnvelopeField> = new Map<Kind, RequiredEnvelopeField>([
  ['mcp/response', 'correlation_id'],
  ['mcp/withdraw', 'correlation_id'],
  ['mcp/reject', 'correlation_id'],
  ['chat/acknowledge', 'correlation_id'],
  ['chat/cancel', 'correlation_id'],
  ['participant/compact-done', 'correlation_id'],
  ['reasoning/cancel', 'context'],
]);
