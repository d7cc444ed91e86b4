import { z } from 'zod';
import { capabilityPatternSchema } from './capability-pattern';

const capabilities = z.array(capabilityPatternSchema);

/** A participant as the gateway describes it in presence and welcome messages. */
export const participantInfoSchema = z.looseObject({
  /** The participant's identifier. */
  id: z.string().min(1),
  /** Its capabilities (for `join` events and in welcome lists). */
  capabilities: capabilities.optional(),
});

/** `system/presence` (spec §3.7): broadcast join/leave events. */
export const systemPresencePayloadSchema = z.looseObject({
  /** Either `"join"` or `"leave"`. */
  event: z.enum(['join', 'leave']),
  /** The participant who joined or left. */
  participant: participantInfoSchema,
});

/** An open stream listed for late joiners (DESIGN.md, "Streams"). */
export const activeStreamSchema = z.looseObject({
  /** Id used in `#streamID#data` frames. */
  stream_id: z.string().min(1),
  /** Participant that requested it. */
  owner: z.string().min(1),
  /** Direction from the request, e.g. `upload`. */
  direction: z.string(),
  /** Participants allowed to send frames. */
  authorized_writers: z.array(z.string()),
  /** Participants frames are delivered to; absent means everyone. */
  target: z.array(z.string()).optional(),
  /** Frame encoding. */
  encoding: z.string().optional(),
  /** What it carries (our gateway). */
  description: z.string().optional(),
});

/**
 * What a reconnecting client was sent from history: `replayed` envelopes, and whether that is everything since its
 * cursor (`complete: false` when some had left the retained history, or the cursor was from another numbering).
 */
export const catchUpSchema = z.looseObject({
  replayed: z.number().int().nonnegative(),
  complete: z.boolean(),
});

/** `system/welcome` (spec §3.8.1): sent to each joining participant alone (`to`: [it]). */
export const systemWelcomePayloadSchema = z.looseObject({
  /** The joining participant's own id and authoritative capabilities. */
  you: participantInfoSchema.extend({ capabilities }),
  /** The other participants currently in the space. */
  participants: z.array(participantInfoSchema),
  /** Streams open at join time (our gateway). */
  active_streams: z.array(activeStreamSchema).optional(),
  /** How the catch-up asked for with `after=` went (our gateway): it arrived just before this welcome. */
  catch_up: catchUpSchema.optional(),
});

/** One problem with a refused envelope, as listed by `invalid_envelope` errors. */
export const errorIssueSchema = z.looseObject({
  path: z.array(z.union([z.string(), z.number()])),
  message: z.string(),
});

/**
 * `system/error` (spec §3.8.2): sent to the offender; `correlation_id` SHOULD reference the envelope at fault.
 * `error` is one of our `ErrorCode`s, but other gateways' codes are accepted.
 */
export const systemErrorPayloadSchema = z.looseObject({
  /** Stable machine code, e.g. `capability_violation`. */
  error: z.string().min(1),
  /** Human explanation. */
  message: z.string().optional(),
  /** For `capability_violation`: the kind that was refused. */
  attempted_kind: z.string().optional(),
  /** For `capability_violation`: what the sender may do. */
  your_capabilities: capabilities.optional(),
  /** For `invalid_envelope`: what is wrong, field by field. */
  issues: z.array(errorIssueSchema).optional(),
  /** For `rate_limited`: when to try again. */
  retry_after_ms: z.number().nonnegative().optional(),
});

/**
 * `system/security-event` (ours): a refusal that was a security decision (capability, identity, reserved kind,
 * pause, stream write), told by the gateway to the space's operators, never to everyone (DESIGN: error codes).
 */
export const systemSecurityEventPayloadSchema = z.looseObject({
  /** Who was refused. */
  offender: z.string().min(1),
  /** The refusal's error code, e.g. `capability_violation`. */
  error: z.string().min(1),
  message: z.string().optional(),
  /** The kind the offender tried to send. */
  attempted_kind: z.string().optional(),
  /** For a tool call: the tool. */
  tool: z.string().optional(),
  /** The refused envelope's id. */
  envelope_id: z.string().optional(),
  /** Refusals of this offender not told since the previous event (the gateway tells at most a few a second). */
  suppressed: z.number().int().nonnegative().optional(),
});

/** One approval of a proposal the gateway recorded: who approved, with which `mcp/request`, when (gateway time). */
export const approvalEntrySchema = z.looseObject({
  by: z.string().min(1),
  /** The approving (fulfilling) `mcp/request`. */
  envelope_id: z.string().min(1),
  /** ISO 8601, when the gateway accepted it. */
  at: z.string(),
});

/**
 * `system/approval` (ours): a proposal whose tool needs several approvals (space config `approvals`) got one, routed
 * to everyone and correlated to the proposal and to the approving request, so every screen shows "1 of 2: alice".
 * Short of the quorum the approving request was held (echoed to its sender only: the tool did not run); the request
 * that completes it is routed right after this envelope, and runs the call exactly once.
 */
export const systemApprovalPayloadSchema = z.looseObject({
  proposal_id: z.string().min(1),
  /** The approving `mcp/request` this envelope answers. */
  request_id: z.string().min(1),
  /** Distinct participants (never the proposer) that must approve the same call. */
  required: z.number().int().positive(),
  /** The distinct approvers of this call so far, oldest first (one entry per participant). */
  approvals: z.array(approvalEntrySchema),
  /** The quorum is reached: `request_id` is routed to the tool. False: it was held. */
  complete: z.boolean(),
  /** Which call was approved (sha256 of its method and params): approvals of different calls do not add up. */
  call: z.string().optional(),
  /** The approved call differs from the proposal's own (edit-then-approve), when the gateway can tell. */
  edited: z.boolean().optional(),
});

export type ParticipantInfo = z.infer<typeof participantInfoSchema>;
export type ActiveStream = z.infer<typeof activeStreamSchema>;
export type ErrorIssue = z.infer<typeof errorIssueSchema>;
export type SystemPresencePayload = z.infer<typeof systemPresencePayloadSchema>;
export type SystemWelcomePayload = z.infer<typeof systemWelcomePayloadSchema>;
export type SystemSecurityEventPayload = z.infer<typeof systemSecurityEventPayloadSchema>;
export type SystemErrorPayload = z.infer<typeof systemErrorPayloadSchema>;
export type ApprovalEntry = z.infer<typeof approvalEntrySchema>;
export type SystemApprovalPayload = z.infer<typeof systemApprovalPayloadSchema>;

export type CatchUp = z.infer<typeof catchUpSchema>;
