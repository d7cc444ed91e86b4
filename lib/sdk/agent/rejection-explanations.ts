import type { AnyEnvelope } from '../../protocol';

interface LatestRejection {
  rejectId: string;
  explanation?: string;
  notify?: (explanation: string) => void;
}

/**
 * The explanations that follow rejections of my proposals. `proposals.reject(id, reason, explanation)` sends the
 * `mcp/reject`, then a chat correlated to it; the proposal's promise fails on the reject alone, so the agent asks
 * here for the chat that follows. One rejection per rejecter is remembered: the agent makes one call at a time.
 *
 * @example
 * participant.client.on('message', (envelope) => explanations.observe(envelope, participant.id));
 * const why = await explanations.explanation(error.rejectedBy, 1000); // 'That path is outside the project'
 */
export class RejectionExplanations {
  private readonly latest = new Map<string, LatestRejection>();

  /** Feeds every envelope; true when it is an explanation chat (not a question for the agent). */
  observe(envelope: AnyEnvelope, me: string | undefined): boolean {
    if (envelope.kind === 'mcp/reject') {
      if (!envelope.to?.length || (me !== undefined && envelope.to.includes(me))) this.latest.set(envelope.from, { rejectId: envelope.id });
      return false;
    }
    if (envelope.kind !== 'chat') return false;
    const latest = this.latest.get(envelope.from);
    if (!latest || !envelope.correlation_id?.includes(latest.rejectId)) return false;
    latest.explanation = envelope.payload.text;
    latest.notify?.(envelope.payload.text);
    return true;
  }

  /** The explanation of `rejectedBy`'s latest rejection, waiting up to `waitMs` for it; undefined if none came. */
  explanation(rejectedBy: string, waitMs: number): Promise<string | undefined> {
    const latest = this.latest.get(rejectedBy);
    if (!latest || latest.explanation !== undefined) return Promise.resolve(latest?.explanation);
    return new Promise((resolve) => {
      const timer = setTimeout(() => finish(undefined), waitMs);
      const finish = (explanation: string | undefined) => {
        clearTimeout(timer);
        latest.notify = undefined;
        resolve(explanation);
      };
      latest.notify = finish;
    });
  }
}
