import { z } from 'zod';
import { capabilityPatternSchema } from './capability-pattern';

const participantId = z.string().min(1);

/** `space/invite` (spec §3.6.4): broadcast so others know; the gateway answers the inviter with `space/invite-ack`. */
export const spaceInvitePayloadSchema = z.looseObject({
  /** Identifier for the new participant. */
  participant_id: participantId,
  /** Optional address; if given, the gateway SHOULD email connection details. */
  email: z.string().optional(),
  /** Capabilities the participant will have when it joins; absent means none. The inviter must hold them all. */
  initial_capabilities: z.array(capabilityPatternSchema).optional(),
  /** Explanation for the invitation. */
  reason: z.string().optional(),
});

/**
 * `space/invite-ack` (our gateway, DESIGN.md "Invites and kicks"): the answer to an invite, sent to the inviter
 * alone because it carries the minted token.
 */
export const spaceInviteAckPayloadSchema = z.looseObject({
  /**
   * `"created"` when a token was minted; the reference implementation also defines `"already_exists"` and `"error"`
   * (this gateway refuses those invites with a `system/error` of that code instead, before routing them).
   */
  status: z.string(),
  /** The invited participant's id. */
  participant_id: participantId,
  /** Bearer token for the new participant (accepted only). Never logged. */
  token: z.string().optional(),
  /** Where the new participant connects, e.g. `ws://host/ws?space=NAME`. */
  connection_url: z.string().optional(),
  /** Error code when rejected, e.g. `already_exists`. */
  error: z.string().optional(),
  /** Human explanation when rejected. */
  message: z.string().optional(),
});

/** `space/kick` (spec §3.6.5): the gateway disconnects the target and revokes its tokens. */
export const spaceKickPayloadSchema = z.looseObject({
  /** The participant to remove. */
  participant_id: participantId,
  /** Why, for the audit trail. */
  reason: z.string().optional(),
});

export type SpaceInvitePayload = z.infer<typeof spaceInvitePayloadSchema>;
export type SpaceInviteAckPayload = z.infer<typeof spaceInviteAckPayloadSchema>;
export type SpaceKickPayload = z.infer<typeof spaceKickPayloadSchema>;
