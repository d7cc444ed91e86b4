import { z } from 'zod';

// Participant control (spec §3.9). Directives go to the target named in `to`; status and compact-done are the
// target's own reports.

/** Spec §3.9.8–3.9.10: "implementations MAY omit the `payload` property"; absent means `{}`. */
const optionalEmptyPayload = z.looseObject({}).optional();

/**
 * `participant/pause` (spec §3.9.1): the target SHOULD stop sending envelopes other than acknowledgements or
 * cancellations until resumed; our gateway enforces it.
 */
export const participantPausePayloadSchema = z.looseObject({
  /** Why, e.g. `rate_limit`. */
  reason: z.string().optional(),
  /** Auto-resume after this many seconds if no explicit resume arrives. */
  timeout_seconds: z.number().positive().optional(),
});

/** `participant/resume` (spec §3.9.2): lifts a pause; `correlation_id` SHOULD reference the pause. */
export const participantResumePayloadSchema = optionalEmptyPayload;

/**
 * `participant/status` (spec §3.9.4): runtime telemetry, answering `participant/request-status` or proactive.
 * Additional metrics are allowed and should use descriptive snake_case keys.
 */
export const participantStatusPayloadSchema = z.looseObject({
  /** Tokens currently used. */
  tokens: z.number().optional(),
  /** The context window's maximum. */
  max_tokens: z.number().optional(),
  /** MUST be included: envelopes currently retained for the active conversational context. */
  messages_in_context: z.number().int().nonnegative(),
  /** Recent response latency in milliseconds. */
  latency_ms: z.number().optional(),
  /** Free-form state, e.g. `compacting`, `compacted`. */
  status: z.string().optional(),
  /** Tokens consumed this session, cumulatively (prompt + completion over every model call): what a token budget counts. */
  total_tokens: z.number().nonnegative().optional(),
  /** US dollars spent this session, cumulatively: what a money budget counts when reported. */
  cost_usd: z.number().nonnegative().optional(),
});

/** `participant/request-status` (spec §3.9.3): asks the target to emit `participant/status` promptly. */
export const participantRequestStatusPayloadSchema = z.looseObject({
  /** MAY limit which metrics are requested, e.g. `["tokens", "latency"]`. */
  fields: z.array(z.string()).optional(),
});

/** `participant/forget` (spec §3.9.5): drop cached context from one end. */
export const participantForgetPayloadSchema = z.looseObject({
  /** MUST be `"oldest"` or `"newest"`: which end to trim. */
  direction: z.enum(['oldest', 'newest']),
  /** How many records or messages to discard; implementations MAY interpret as tokens. */
  entries: z.number().int().positive().optional(),
});

/** `participant/compact` (spec §3.9.6): run compaction to free headroom; answered by `participant/compact-done`. */
export const participantCompactPayloadSchema = z.looseObject({
  /** Operator context, e.g. `token_pressure`. */
  reason: z.string().optional(),
  /** Desired token ceiling after compaction; MAY be ignored. */
  target_tokens: z.number().nonnegative().optional(),
});

/** `participant/compact-done` (spec §3.9.7): compaction finished or was skipped; MUST follow every compact. */
export const participantCompactDonePayloadSchema = z.looseObject({
  /** Tokens reclaimed. */
  freed_tokens: z.number().optional(),
  /** Messages reclaimed. */
  freed_messages: z.number().optional(),
  /** E.g. `compacted`. */
  status: z.string().optional(),
  /** True when nothing was compacted. */
  skipped: z.boolean().optional(),
  /** Human-readable reason, typically when skipped. */
  reason: z.string().optional(),
});

/** `participant/clear` (spec §3.9.8): erase all cached context; no payload fields are required. */
export const participantClearPayloadSchema = optionalEmptyPayload;

/** `participant/restart` (spec §3.9.9): back to a known baseline; vendor hints MAY be included. */
export const participantRestartPayloadSchema = optionalEmptyPayload;

/** `participant/shutdown` (spec §3.9.10): cease all activity; the gateway refuses its envelopes until it rejoins. */
export const participantShutdownPayloadSchema = optionalEmptyPayload;

export type ParticipantPausePayload = z.infer<typeof participantPausePayloadSchema>;
export type ParticipantResumePayload = z.infer<typeof participantResumePayloadSchema>;
export type ParticipantStatusPayload = z.infer<typeof participantStatusPayloadSchema>;
export type ParticipantRequestStatusPayload = z.infer<typeof participantRequestStatusPayloadSchema>;
export type ParticipantForgetPayload = z.infer<typeof participantForgetPayloadSchema>;
export type ParticipantCompactPayload = z.infer<typeof participantCompactPayloadSchema>;
export type ParticipantCompactDonePayload = z.infer<typeof participantCompactDonePayloadSchema>;
export type ParticipantClearPayload = z.infer<typeof participantClearPayloadSchema>;
export type ParticipantRestartPayload = z.infer<typeof participantRestartPayloadSchema>;
export type ParticipantShutdownPayload = z.infer<typeof participantShutdownPayloadSchema>;
