import { threadForContext, type ReasoningState, type ReasoningThread } from './reasoning-slice';

/** What a `stream/request`, `stream/open` or welcome `active_streams` entry says that may tie it to reasoning. */
export interface StreamLinkHints {
  /** Who asked for the stream (request `from`, open `payload.owner`). */
  requester?: string;
  correlationIds?: readonly string[];
  context?: string;
  description?: string;
  /** Try the by-convention fallback (rule 4); only for a fresh request or open, not for a welcome listing. */
  allowFallback: boolean;
}

/** Descriptions that announce a reasoning trace without naming the thread, e.g. "reasoning trace". */
const REASONING_DESCRIPTION = /reason/i;

/**
 * The reasoning thread a stream carries, by these rules in order:
 * 1. its `correlation_id` names a `reasoning/start`;
 * 2. its `context` names one (as `reasoning/thought` does);
 * 3. its `payload.description` contains a start id (e.g. `"reasoning:reason-001"`);
 * 4. fallback (the SDK requests a stream right after `reasoning/start`, spec §3.10.1 / SDK "Streaming Reasoning
 *    Transparency"): the description mentions "reason" and the requester has a live thread with no stream yet;
 *    its most recently started such thread.
 * A `stream/open` inherits the link of the `stream/request` its `correlation_id` names before these rules apply.
 */
export function findReasoningForStream(state: ReasoningState, hints: StreamLinkHints): ReasoningThread | undefined {
  for (const id of hints.correlationIds ?? []) {
    const thread = state.byId.get(id);
    if (thread) return thread;
  }
  const byContext = threadForContext(state, hints.context);
  if (byContext) return byContext;
  const description = hints.description;
  if (!description) return undefined;
  for (const t of state.byId.values()) if (description.includes(t.id)) return t;
  if (!hints.allowFallback || !hints.requester || !REASONING_DESCRIPTION.test(description)) return undefined;
  let best: ReasoningThread | undefined;
  for (const t of state.byId.values()) {
    if (t.from === hints.requester && t.state === 'live' && t.streamId === undefined && (!best || t.startedAt >= best.startedAt)) best = t;
  }
  return best;
}
