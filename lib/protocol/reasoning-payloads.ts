import { z } from 'zod';

// Reasoning sequences (spec §3.5): the `reasoning/start` envelope's id becomes the `context` of what follows.
// The gateway routes them by `context` and enforces nothing of their words, so payloads in other shapes pass: the
// reference implementation's agent starts with `{input}`, thinks in ReAct steps `{reasoning, action, actionInput}`
// and concludes with `{}` (or `{cancelled, reason}`). `reasoningText` and `reasoningAction` read either shape.

/** `reasoning/start` (spec §3.5.2): begins a sequence; `correlation_id` MAY name the triggering request. */
export const reasoningStartPayloadSchema = z.looseObject({
  /** What the participant is about to reason about. */
  message: z.string().optional(),
});

/** `reasoning/thought` (spec §3.5.3): one step of internal monologue; no reply expected. */
export const reasoningThoughtPayloadSchema = z.looseObject({
  /** The thought itself (the spec's field; the reference implementation's thoughts say `reasoning` instead). */
  message: z.string().optional(),
});

/** `reasoning/conclusion` (spec §3.5.4): ends the sequence, with a summary when there is one. */
export const reasoningConclusionPayloadSchema = z.looseObject({
  /** The conclusion reached (the reference implementation's conclusions are often `{}`). */
  message: z.string().optional(),
});

/**
 * `reasoning/cancel` (spec §3.5.5): aborts a sequence without a conclusion. `context` MUST reference the
 * `reasoning/start`; afterwards no more thoughts SHOULD be sent for that context.
 */
export const reasoningCancelPayloadSchema = z.looseObject({
  /** Deployment-defined code, e.g. `timeout`, `superseded`, `error`. */
  reason: z.string().optional(),
});

/**
 * The words of a reasoning payload, in the spec's shape (`message`) or the reference implementation's (`reasoning`
 * in a thought, `input` in a start); undefined when it has none.
 *
 * @example
 * reasoningText({ message: 'checking the YAML' }); // 'checking the YAML'
 * reasoningText({ reasoning: 'I should list the files', action: 'tool' }); // 'I should list the files'
 */
export function reasoningText(payload: unknown): string | undefined {
  if (typeof payload !== 'object' || payload === null) return undefined;
  const { message, reasoning, input } = payload as Record<string, unknown>;
  for (const words of [message, reasoning, input]) if (typeof words === 'string' && words !== '') return words;
  return undefined;
}

/** What a ReAct step chose to do, as the reference implementation's thoughts say it: `action` (`tool`, `respond`…) and its `actionInput`. */
export interface ReasoningAction {
  action: string;
  input?: unknown;
}

/** A thought's action (`{action, actionInput}`), if it names one. */
export function reasoningAction(payload: unknown): ReasoningAction | undefined {
  if (typeof payload !== 'object' || payload === null) return undefined;
  const { action, actionInput } = payload as Record<string, unknown>;
  if (typeof action !== 'string' || action === '') return undefined;
  return actionInput === undefined ? { action } : { action, input: actionInput };
}

export type ReasoningStartPayload = z.infer<typeof reasoningStartPayloadSchema>;
export type ReasoningThoughtPayload = z.infer<typeof reasoningThoughtPayloadSchema>;
export type ReasoningConclusionPayload = z.infer<typeof reasoningConclusionPayloadSchema>;
export type ReasoningCancelPayload = z.infer<typeof reasoningCancelPayloadSchema>;
