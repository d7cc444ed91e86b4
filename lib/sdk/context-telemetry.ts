import type { ParticipantStatusPayload } from '../protocol';
import { TELEMETRY_REARM_RATIO, TELEMETRY_SOFT_LIMIT_RATIO } from './sdk-defaults';

/** The current size of my context, as the application knows it. Omitted fields keep their last value. */
export interface ContextUsage {
  tokens?: number;
  /** Envelopes or messages retained in the active context (`messages_in_context`). */
  messages?: number;
  maxTokens?: number;
  /** Latest response latency. */
  latencyMs?: number;
  /** Tokens consumed this session so far, every model call's prompt and completion (`total_tokens`: what budgets count). */
  totalTokens?: number;
  /** US dollars spent this session so far (`cost_usd`). */
  costUsd?: number;
}

export interface TelemetryOptions {
  maxTokens?: number;
  /** @default TELEMETRY_SOFT_LIMIT_RATIO */
  softLimitRatio?: number;
  /** @default TELEMETRY_REARM_RATIO */
  rearmRatio?: number;
}

/**
 * Context usage counters and the soft-limit alarm (spec §3.9.4: report proactively when approaching a limit).
 * The alarm fires once when tokens reach `softLimitRatio` of `maxTokens`, then stays quiet until usage has dropped
 * below `rearmRatio` (hysteresis), so a context hovering at the limit does not flood the space with status.
 *
 * @example
 * const telemetry = new ContextTelemetry({ maxTokens: 1000 });
 * telemetry.record({ tokens: 950, messages: 40 }); // true: crossed 90%, report now
 * telemetry.record({ tokens: 960 }); // false: already reported
 * telemetry.buildStatusPayload(); // { messages_in_context: 40, tokens: 960, max_tokens: 1000 }
 */
export class ContextTelemetry {
  private usage: Required<Pick<ContextUsage, 'tokens' | 'messages'>> & Omit<ContextUsage, 'tokens' | 'messages'>;
  private armed = true;
  private readonly softLimitRatio: number;
  private readonly rearmRatio: number;

  constructor(options: TelemetryOptions = {}) {
    this.usage = { tokens: 0, messages: 0, maxTokens: options.maxTokens };
    this.softLimitRatio = options.softLimitRatio ?? TELEMETRY_SOFT_LIMIT_RATIO;
    this.rearmRatio = options.rearmRatio ?? TELEMETRY_REARM_RATIO;
  }

  /** Updates the counters; true when this update crossed the soft limit and a proactive report is due. */
  record(update: ContextUsage): boolean {
    this.usage = { ...this.usage, ...stripUndefined(update) };
    const { tokens, maxTokens } = this.usage;
    if (!maxTokens) return false;
    const ratio = tokens / maxTokens;
    if (ratio < this.rearmRatio) this.armed = true;
    if (!this.armed || ratio < this.softLimitRatio) return false;
    this.armed = false;
    return true;
  }

  /** One more message retained in the context (an incoming chat). */
  countMessage(): void {
    this.usage = { ...this.usage, messages: this.usage.messages + 1 };
  }

  /**
   * A `participant/status` payload: always `messages_in_context` (spec §3.9.4: MUST), plus what is known, plus
   * `status` if given. With `fields` (a `request-status`'s), only the metrics they name: a field names a key, that
   * key with a unit (`latency` → `latency_ms`, `cost` → `cost_usd`), and its limit (`tokens` → `max_tokens`).
   */
  buildStatusPayload(status?: string, fields?: readonly string[]): ParticipantStatusPayload {
    const { tokens, messages, maxTokens, latencyMs, totalTokens, costUsd } = this.usage;
    const metrics: Record<string, number> = {
      tokens,
      ...(maxTokens !== undefined && { max_tokens: maxTokens }),
      ...(latencyMs !== undefined && { latency_ms: latencyMs }),
      ...(totalTokens !== undefined && { total_tokens: totalTokens }),
      ...(costUsd !== undefined && { cost_usd: costUsd }),
    };
    const wanted = (key: string) => !fields || fields.some((f) => key === f || key.startsWith(`${f}_`) || key === `max_${f}`);
    return {
      messages_in_context: Math.max(0, Math.trunc(messages)),
      ...Object.fromEntries(Object.entries(metrics).filter(([key]) => wanted(key))),
      ...(status !== undefined && { status }),
    };
  }
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
