import type { ReduceContext } from './reduce-context';
import { num, str, type StoreEnvelope } from './store-envelope';

/** One refusal of another participant the gateway told me about (`system/security-event`: I am an operator). */
export interface SecurityEvent {
  id: string;
  at: number;
  offender: string;
  /** The refusal's code, e.g. `capability_violation`. */
  error: string;
  message?: string;
  attemptedKind?: string;
  tool?: string;
  /** Refusals of the offender the gateway did not tell separately (flood control); counted in the totals. */
  suppressed: number;
}

/** The live security feed: the newest events, and refusals per offender since I joined. */
export interface SecurityState {
  /** Newest last, at most `config.securityFeedCap`. */
  feed: readonly SecurityEvent[];
  /** Refusals per offender (suppressed ones included). */
  countByOffender: ReadonlyMap<string, number>;
}

export const EMPTY_SECURITY: SecurityState = { feed: [], countByOffender: new Map() };

/** Adds a `system/security-event` to the feed and its offender's count; every other envelope leaves the slice as is. */
export function reduceSecurity(state: SecurityState, envelope: StoreEnvelope, ctx: ReduceContext): SecurityState {
  if (envelope.kind !== 'system/security-event') return state;
  const { payload } = envelope;
  const event: SecurityEvent = {
    id: envelope.id,
    at: ctx.at,
    offender: payload.offender,
    error: payload.error,
    message: str(payload.message),
    attemptedKind: str(payload.attempted_kind),
    tool: str(payload.tool),
    suppressed: num(payload.suppressed) ?? 0,
  };
  const countByOffender = new Map(state.countByOffender);
  countByOffender.set(event.offender, (countByOffender.get(event.offender) ?? 0) + 1 + event.suppressed);
  const overflow = Math.max(0, state.feed.length + 1 - ctx.config.securityFeedCap);
  return { feed: [...state.feed.slice(overflow), event], countByOffender };
}
