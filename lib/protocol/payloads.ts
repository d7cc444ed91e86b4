import type { z } from 'zod';
import type { Kind } from './kinds';
import { capabilityGrantAckPayloadSchema, capabilityGrantPayloadSchema, capabilityRevokePayloadSchema } from './capability-payloads';
import { chatAcknowledgePayloadSchema, chatCancelPayloadSchema, chatPayloadSchema } from './chat-payloads';
import { mcpProposalPayloadSchema, mcpRejectPayloadSchema, mcpRequestPayloadSchema, mcpResponsePayloadSchema, mcpWithdrawPayloadSchema } from './mcp-payloads';
import {
  participantClearPayloadSchema,
  participantCompactDonePayloadSchema,
  participantCompactPayloadSchema,
  participantForgetPayloadSchema,
  participantPausePayloadSchema,
  participantRequestStatusPayloadSchema,
  participantRestartPayloadSchema,
  participantResumePayloadSchema,
  participantShutdownPayloadSchema,
  participantStatusPayloadSchema,
} from './participant-payloads';
import {
  reasoningCancelPayloadSchema,
  reasoningConclusionPayloadSchema,
  reasoningStartPayloadSchema,
  reasoningThoughtPayloadSchema,
} from './reasoning-payloads';
import { spaceInviteAckPayloadSchema, spaceInvitePayloadSchema, spaceKickPayloadSchema } from './space-payloads';
import { streamClosePayloadSchema, streamOpenPayloadSchema, streamRequestPayloadSchema } from './stream-payloads';
import {
  systemApprovalPayloadSchema,
  systemErrorPayloadSchema,
  systemPresencePayloadSchema,
  systemSecurityEventPayloadSchema,
  systemWelcomePayloadSchema,
} from './system-payloads';

/** The payload schema of every kind; `satisfies` makes a missing or extra kind a compile error. */
export const payloadSchemas = {
  'mcp/request': mcpRequestPayloadSchema,
  'mcp/response': mcpResponsePayloadSchema,
  'mcp/proposal': mcpProposalPayloadSchema,
  'mcp/withdraw': mcpWithdrawPayloadSchema,
  'mcp/reject': mcpRejectPayloadSchema,
  'reasoning/start': reasoningStartPayloadSchema,
  'reasoning/thought': reasoningThoughtPayloadSchema,
  'reasoning/conclusion': reasoningConclusionPayloadSchema,
  'reasoning/cancel': reasoningCancelPayloadSchema,
  'capability/grant': capabilityGrantPayloadSchema,
  'capability/revoke': capabilityRevokePayloadSchema,
  'capability/grant-ack': capabilityGrantAckPayloadSchema,
  'space/invite': spaceInvitePayloadSchema,
  'space/invite-ack': spaceInviteAckPayloadSchema,
  'space/kick': spaceKickPayloadSchema,
  'participant/pause': participantPausePayloadSchema,
  'participant/resume': participantResumePayloadSchema,
  'participant/status': participantStatusPayloadSchema,
  'participant/request-status': participantRequestStatusPayloadSchema,
  'participant/forget': participantForgetPayloadSchema,
  'participant/compact': participantCompactPayloadSchema,
  'participant/compact-done': participantCompactDonePayloadSchema,
  'participant/clear': participantClearPayloadSchema,
  'participant/restart': participantRestartPayloadSchema,
  'participant/shutdown': participantShutdownPayloadSchema,
  'stream/request': streamRequestPayloadSchema,
  'stream/open': streamOpenPayloadSchema,
  'stream/close': streamClosePayloadSchema,
  chat: chatPayloadSchema,
  'chat/acknowledge': chatAcknowledgePayloadSchema,
  'chat/cancel': chatCancelPayloadSchema,
  'system/presence': systemPresencePayloadSchema,
  'system/welcome': systemWelcomePayloadSchema,
  'system/error': systemErrorPayloadSchema,
  'system/security-event': systemSecurityEventPayloadSchema,
  'system/approval': systemApprovalPayloadSchema,
} as const satisfies { readonly [K in Kind]: z.ZodType };

export type PayloadSchemas = typeof payloadSchemas;

/**
 * The payload type of kind `K`. For the kinds whose payload MAY be omitted (`OPTIONAL_PAYLOAD_KINDS`) this
 * includes `undefined`.
 */
export type PayloadOf<K extends Kind> = z.infer<PayloadSchemas[K]>;
