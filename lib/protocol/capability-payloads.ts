import { z } from 'zod';
import { capabilityPatternSchema } from './capability-pattern';
import { RFC3339_PATTERN } from './envelope';

const participantId = z.string().min(1);

/**
 * `capability/grant` (spec §3.6.1): the grant envelope's id becomes the `grant_id` for later revocation.
 * The sender needs `capability/grant` and MUST hold every capability it grants (§3.6.6).
 */
export const capabilityGrantPayloadSchema = z.looseObject({
  /** Participant receiving the capabilities. */
  recipient: participantId,
  /** Capability patterns (spec §4.1) to add; multiple grants are cumulative. */
  capabilities: z.array(capabilityPatternSchema).min(1, 'grant at least one capability'),
  /** Why the grant is made, for the audit trail. */
  reason: z.string().optional(),
  /** Our gateway's extension: when the grant ends by itself (RFC 3339, the ISO 8601 profile envelopes use for `ts`). */
  expires_at: z.string().regex(RFC3339_PATTERN, 'must be an RFC 3339 timestamp, e.g. "2025-08-26T15:00:00Z"').optional(),
});

/**
 * `capability/revoke` (spec §3.6.2): by `grant_id`, or by pattern (removes ALL matching granted capabilities).
 * Revocations take effect immediately.
 */
export const capabilityRevokePayloadSchema = z
  .looseObject({
    /** Participant losing the capabilities. */
    recipient: participantId,
    /** Id of the `capability/grant` envelope to undo. */
    grant_id: z.string().min(1).optional(),
    /** Patterns whose matching granted capabilities are removed. */
    capabilities: z.array(capabilityPatternSchema).min(1, 'revoke at least one capability').optional(),
    /** Why, for the audit trail. */
    reason: z.string().optional(),
  })
  .refine((p) => p.grant_id !== undefined || p.capabilities !== undefined, {
    message: 'a revoke needs "grant_id" or "capabilities"',
  });

/** `capability/grant-ack` (spec §3.6.3): the recipient acknowledges; `correlation_id` names the grant. */
export const capabilityGrantAckPayloadSchema = z.looseObject({
  /** E.g. `"accepted"`. */
  status: z.string(),
});

export type CapabilityGrantPayload = z.infer<typeof capabilityGrantPayloadSchema>;
export type CapabilityRevokePayload = z.infer<typeof capabilityRevokePayloadSchema>;
export type CapabilityGrantAckPayload = z.infer<typeof capabilityGrantAckPayloadSchema>;
