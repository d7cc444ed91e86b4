import type { AnyEnvelope } from '../protocol';
import { initialProposals, reduceProposals, type Proposal, type ProposalsState } from './model/proposals-slice';
import type { ReduceContext } from './model/reduce-context';
import { resolveStoreConfig, type StoreConfig } from './model/store-defaults';
import { correlationIds, envelopeTime } from './model/store-envelope';
import { initialTools, reduceTools, type ToolsState } from './model/tools-slice';

/**
 * Others' proposals as a participant sees them: the space model's own reducers (proposals, and the tools whose
 * `tools/list` gives them their risk), fed with every envelope the participant receives. The control room's store
 * derives its queue with the same reducers, so an agent and a dashboard can never disagree on where a proposal
 * stands. No deadline of our own: a proposal expires only by its proposer's withdrawal or timeout.
 *
 * @example
 * const view = new ProposalsView();
 * const changed = view.observe(envelope, 'me', Date.now()); // the proposals this envelope created or moved
 */
export class ProposalsView {
  private proposals: ProposalsState = initialProposals();
  private tools: ToolsState = initialTools();
  private seq = 0;
  private readonly config: StoreConfig = resolveStoreConfig({ proposalTimeoutMs: null });

  get(id: string): Proposal | undefined {
    return this.proposals.byId.get(id);
  }

  /** Others' proposals still waiting for a decision, oldest first. */
  pending(me: string | undefined): Proposal[] {
    return [...this.proposals.byId.values()].filter((p) => p.state === 'pending' && p.proposer !== me);
  }

  /** Applies one envelope; returns others' proposals it created or changed. */
  observe(envelope: AnyEnvelope, me: string | undefined, now: number): Proposal[] {
    const ids = this.concerned(envelope);
    const before = ids.map((id) => this.proposals.byId.get(id));
    const ctx: ReduceContext = { now, at: envelopeTime(envelope, now), me, seq: ++this.seq, config: this.config };
    this.tools = reduceTools(this.tools, envelope, ctx);
    this.proposals = reduceProposals(this.proposals, envelope, ctx, this.tools);
    const changed: Proposal[] = [];
    ids.forEach((id, i) => {
      const after = this.proposals.byId.get(id);
      if (after && after !== before[i] && after.proposer !== me) changed.push(after);
    });
    return changed;
  }

  /** The proposals an envelope may create or move: itself, what it correlates to, or what its fulfilment did. */
  private concerned(envelope: AnyEnvelope): string[] {
    if (envelope.kind === 'mcp/proposal') return [envelope.id];
    const refs = correlationIds(envelope);
    if (envelope.kind === 'mcp/response') return refs.flatMap((ref) => this.proposals.byFulfilment.get(ref) ?? []);
    if (envelope.kind === 'chat') return refs.flatMap((ref) => this.proposals.byRejection.get(ref) ?? []);
    return [...refs];
  }
}
