import { BoundedMap } from '../collections/bounded-map';
import type { SentEnvelope } from './mew-client';
import { ANSWERED_REQUESTS } from './sdk-defaults';

/** What became of one request addressed to me: still running, or answered (with no response for a notification). */
export type RequestOutcome = { state: 'running' } | { state: 'answered'; response?: SentEnvelope };

/**
 * The `mcp/request`s addressed to me that I took on, by envelope id (the request's identity: a JSON-RPC id is only
 * unique per requester), with the response envelope I sent. A request delivered again, replayed after a reconnect
 * or resent by a requester in doubt, is answered by sending that same envelope again (same id, same payload: the
 * gateway dedupes it for everyone else) and never runs twice; one still running is not started again. Bounded: the
 * oldest are forgotten first.
 *
 * @example
 * const answered = new AnsweredRequests();
 * if (answered.start(request.id)) answered.finish(request.id, participant.send(response));
 * answered.outcome(request.id); // { state: 'answered', response }
 */
export class AnsweredRequests {
  private readonly outcomes: BoundedMap<string, RequestOutcome>;

  constructor(capacity: number = ANSWERED_REQUESTS) {
    this.outcomes = new BoundedMap(capacity);
  }

  /** What is known of the request `id`; undefined when it was never taken on (or long forgotten). */
  outcome(id: string): RequestOutcome | undefined {
    return this.outcomes.get(id);
  }

  /** Takes the request on: true the first time, false when it is running or answered already. */
  start(id: string): boolean {
    if (this.outcomes.has(id)) return false;
    this.outcomes.set(id, { state: 'running' });
    return true;
  }

  /** Records the answer; without a response for a notification, or for a request whose handler failed. */
  finish(id: string, response?: SentEnvelope): void {
    this.outcomes.set(id, { state: 'answered', ...(response && { response }) });
  }
}
