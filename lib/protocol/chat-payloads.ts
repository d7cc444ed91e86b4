import { z } from 'zod';

/** `chat` (spec §3.4): a chat message, typically broadcast. */
export const chatPayloadSchema = z.looseObject({
  /** The message content (required). */
  text: z.string(),
  /** `"plain"` or `"markdown"`; defaults to `"plain"` when absent. */
  format: z.enum(['plain', 'markdown']).optional(),
  /**
   * A question its sender waits on (an extension field: MEW payloads are open): the answer is a `chat` whose
   * `correlation_id` names it, and the control room shows it with a reply box. MCP clients ask one through the
   * `space__ask_human` tool.
   */
  question: z.boolean().optional(),
});

/** `chat/acknowledge` (spec §3.4.1): `correlation_id` MUST reference the chat envelope acknowledged. */
export const chatAcknowledgePayloadSchema = z.looseObject({
  /** Acknowledgement semantics, e.g. `"received"` or `"read"`. */
  status: z.string().optional(),
});

/** `chat/cancel` (spec §3.4.2): the referenced chat message no longer needs attention. */
export const chatCancelPayloadSchema = z.looseObject({
  /** SHOULD say why, e.g. `"handled_elsewhere"`, `"duplicate"`, `"timeout"`. */
  reason: z.string().optional(),
});

export type ChatPayload = z.infer<typeof chatPayloadSchema>;
export type ChatAcknowledgePayload = z.infer<typeof chatAcknowledgePayloadSchema>;
export type ChatCancelPayload = z.infer<typeof chatCancelPayloadSchema>;
