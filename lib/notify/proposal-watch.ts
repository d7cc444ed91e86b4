import { BoundedMap } from '../collections/bounded-map';
import type { AnyEnvelope } from '../protocol';
import { initialProposals, reduceProposals, type Proposal, type ProposalsState } from '../sdk/model/proposals-slice';
import { resolveStoreConfig } from '../sdk/model/store-defaults';
import { correlationIds, envelopeTime } from '../sdk/model/store-envelope';
import { findToolSecurity, initialTools, reduceTools, type ToolSecurity, type ToolsState } from '../sdk/model/tools-slice';
import { proposalContentHash, type ProposalContent } from './proposal-content-hash';

/** Pending proposals whose content is kept for action tokens; the oldest are forgotten past it. */
const CONTENT_CAP = 10_000;

/** The kinds that create, decide or give a risk to a proposal: everything else is not looked at. */
export const WATCHED_KINDS: ReadonlySet<string> = new Set(['mcp/proposal', 'mcp/request', 'mcp/response', 'mcp/reject', 'mcp/withdraw']);

/** What a proposal became: pending when it arrives, then the decision that settled it. */
export type ProposalEventType = 'pending' | 'fulfilled' | 'rejected' | 'withdrawn';

export interface ProposalEvent {
  type: ProposalEventType;
  proposal: Proposal;
  /** Its tool's MGP risk as known now (the target's `tools/list`), undefined when undeclared. */
  risk?: ToolSecurity;
  at: number;
}

const DECISIONS: ReadonlySet<string> = new Set(['fulfilled', 'rejected', 'withdrawn']);

/**
 * The proposals of a space and their tools' risk, fed with the envelopes routed there through the SDK's own
 * reducers (the proposals and tools slices of lib/sdk/model), so the notifier, an agent and the control room agree on
 * what is pending. Keeps each pending proposal's content hash for the action tokens bound to it.
 */
export class ProposalWatch {
  private proposals: ProposalsState = initialProposals();
  private tools: ToolsState = initialTools();
  private seq = 0;
  // No deadline of our own: a proposal expires by its proposer's withdraw.
  private readonly config = resolveStoreConfig({ proposalTimeoutMs: null });
  private readonly hashes = new BoundedMap<string, string>(CONTENT_CAP);

  /** Applies one envelope; returns the proposals it created (pending) or decided. */
  apply(envelope: AnyEnvelope, now: number): ProposalEvent[] {
    const at = envelopeTime(envelope, now);
    const ctx = { now, at, me: undefined, seq: ++this.seq, config: this.config };
    const ids = envelope.kind === 'mcp/proposal' ? [envelope.id] : correlationIds(envelope);
    const before = ids.map((id) => this.proposals.byId.get(id));
    this.tools = reduceTools(this.tools, envelope, ctx);
    this.proposals = reduceProposals(this.proposals, envelope, ctx, this.tools);
    const events: ProposalEvent[] = [];
    ids.forEach((id, i) => {
      const proposal = this.proposals.byId.get(id);
      if (!proposal || proposal === before[i]) return;
      if (before[i] === undefined && proposal.state === 'pending') {
        this.hashes.set(id, proposalContentHash(envelope as ProposalContent));
        events.push({ type: 'pending', proposal, risk: this.risk(proposal), at });
      } else if (before[i]?.state === 'pending' && DECISIONS.has(proposal.state)) {
        this.hashes.delete(id);
        events.push({ type: proposal.state as ProposalEventType, proposal, risk: this.risk(proposal), at });
      }
    });
    return events;
  }

  proposal(id: string): Proposal | undefined {
    return this.proposals.byId.get(id);
  }

  /** The content hash of a pending proposal. */
  contentHash(id: string): string | undefined {
    return this.hashes.get(id);
  }

  /** The tool's risk as known now: a `tools/list` seen after the proposal counts. */
  risk(proposal: Proposal): ToolSecurity | undefined {
    return findToolSecurity(this.tools, proposal.target, proposal.toolName);
  }
}
