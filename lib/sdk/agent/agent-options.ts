import { z } from 'zod';
import type { MEWParticipantOptions } from '../mew-participant';
import { MewSdkError } from '../sdk-errors';

/**
 * MEWAgent's settings: one schema whose defaults are the documented ones. The constants below are the agent's
 * fixed tunings; nothing else in `lib/sdk/agent` hard-codes a number.
 */
const promptsShape = z.strictObject({
  /** Replaces the base system prompt (and `systemPrompt`). Placeholders: `{me}`. */
  system: z.string().optional(),
  /** How to think before acting; its text becomes the visible `reasoning/thought`s. Placeholders: `{me}`, `{tools}`. */
  reason: z.string().optional(),
  /** How to use the tools (only sent when some are available). Placeholders: `{me}`, `{tools}`. */
  act: z.string().optional(),
  /** The last call, when `maxIterations` ran out: answer with what is known. Placeholders: `{me}`, `{input}`. */
  respond: z.string().optional(),
});

export const agentSettingsSchema = z.object({
  /** Chat-completions model name, e.g. `gpt-4o-mini` or a local model's. */
  model: z.string().min(1),
  /** Any OpenAI-compatible endpoint (vLLM, Ollama, LM Studio…). @default OPENAI_BASE_URL */
  baseUrl: z.url().optional(),
  /** Sent as the bearer token; a keyless local endpoint needs only `baseUrl`. */
  apiKey: z.string().min(1).optional(),
  /** The base system prompt; `prompts.system` wins over it. @default DEFAULT_PROMPTS.system */
  systemPrompt: z.string().optional(),
  prompts: promptsShape.default({}),
  /** Model calls per turn before the agent must answer with what it has. @default 8 */
  maxIterations: z.number().int().positive().default(8),
  /** The model's context size in tokens: reported as `max_tokens`, and the base of automatic compaction. @default 128000 */
  contextWindow: z.number().int().positive().default(128_000),
  /** Stream completions (SSE), so a `reasoning/cancel` stops a long answer at once. @default true */
  stream: z.boolean().default(true),
  /** Replies (turns) at most per minute; later chats wait for a slot. @default 10 */
  maxRepliesPerMinute: z.number().int().positive().default(10),
  /**
   * Ask the model whether a broadcast chat that neither addresses nor mentions me still wants my answer.
   * Costs one model call per such chat. @default false
   */
  classifyChats: z.boolean().default(false),
  /** Confidence the classification needs to answer. @default 0.7 */
  classificationThreshold: z.number().min(0).max(1).default(0.7),
});

export type AgentSettings = z.output<typeof agentSettingsSchema>;
export type AgentSettingsInput = z.input<typeof agentSettingsSchema>;
export type AgentPrompts = z.output<typeof promptsShape>;

/** Everything a participant takes, plus the agent's settings. */
export type MEWAgentOptions = MEWParticipantOptions & AgentSettingsInput;

/** Where requests go without `baseUrl` (passed explicitly so the `openai` package never reads the environment). */
export const OPENAI_BASE_URL = 'https://api.openai.com/v1';

/** Sent when only `baseUrl` is set: local servers ignore it, but the `openai` client insists on some key. */
export const KEYLESS_API_KEY = 'no-key';

/** An agent compacts its context on its own once it holds this share of its window (MEWAgent: before the next model call). */
export const COMPACTION_TRIGGER_RATIO = 0.8;

/** Rough size of a token, for the usage an agent reports until a model API counts it (the usual rule of thumb for English). */
export const CHARS_PER_TOKEN_ESTIMATE = 4;

/** `participant/forget` without `entries` drops this many. */
export const DEFAULT_FORGET_ENTRIES = 5;

/** Before its first model call, a turn waits this long for tool discoveries in flight (spec "Tool Discovery Synchronization"). */
export const DISCOVERY_WAIT_MS = 5_000;

/** After a rejection, how long to wait for the rejecter's explanation chat (sent right after the `mcp/reject`). */
export const REJECTION_EXPLANATION_WAIT_MS = 1_000;

/** The sliding window of `maxRepliesPerMinute`. */
export const REPLY_RATE_WINDOW_MS = 60_000;

/** What the agent says when the model answered with nothing. */
export const EMPTY_ANSWER_TEXT = '(the model returned an empty answer)';

/** Thrown when the agent has nowhere to send model calls. */
export class AgentConfigurationError extends MewSdkError {}

/**
 * Refuses an agent that would only pretend: without an API key or an endpoint there is no model to ask. The
 * launcher calls it before starting an agent process; the constructor calls it too.
 *
 * @example
 * assertAgentConfigured({ apiKey: process.env.OPENAI_API_KEY, baseUrl: config.agent?.base_url });
 */
export function assertAgentConfigured(options: { baseUrl?: string; apiKey?: string }): void {
  if (!options.baseUrl && !options.apiKey) throw new AgentConfigurationError('not configured: set OPENAI_API_KEY or agent.base_url');
}

/** The agent's settings from its options, defaults applied; throws for a missing endpoint or an invalid value. */
export function resolveAgentSettings(options: AgentSettingsInput): AgentSettings {
  assertAgentConfigured(options);
  const parsed = agentSettingsSchema.safeParse(options);
  if (!parsed.success) throw new AgentConfigurationError(`invalid agent options: ${z.prettifyError(parsed.error)}`);
  return parsed.data;
}
