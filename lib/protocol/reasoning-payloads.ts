import { z } from 'zod';

// Reasoning sequences (spec §3.5): the `reasoning/start` envelope's id becomes the `context` of what follows.

/** `reasoning/start` (spec §3.5.2): begins a sequence; `correlation_id` MAY name the triggering request. */
export const reasoningStartPayloadSchema = z.looseObject({
  /** What the participant is about to reason about. */
  message: z.string().optional(),
});

/** `reasoning/thought` (spec §3.5.3): one step of internal monologue; no reply expected. */
export const reasoningThoughtPayloadSchema = z.looseObject({
  /** The thought itself. */
  message: z.string(),
});

/** `reasoning/conclusion` (spec §3.5.4): ends the sequence with a summary. */
export const reasoningConclusionPayloadSchema = z.looseObject({
  /** The conclusion reached. */
  message: z.string(),
});

/**
 * `reasoning/cancel` (spec §3.5.5): aborts a sequence without a conclusion. `context` MUST reference the
 * `reasoning/start`; afterwards no more thoughts SHOULD be sent for that context.
 */
export const reasoningCancelPayloadSchema = z.looseObject({
  /** Deployment-defined code, e.g. `timeout`, `superseded`, `error`. */
  reason: z.string().optional(),
});

export type ReasoningStartPayload = z.infer<typeof reasoningStartPayloadSchema>;
export type ReasoningThoughtPayload = z.infer<typeof reasoningThoughtPayloadSchema>;
export type ReasoningConclusionPayload = z.infer<typeof reasoningConclusionPayloadSchema>;
export type ReasoningCancelPayload = z.infer<typeof reasoningCancelPayloadSchema>;
