import { BoundedMap } from '../collections/bounded-map';

/** How many recent proposals (and fulfilling requests) the gateway remembers to audit what became of them. */
const TRACKED_PROPOSALS = 10_000;

/** A proposal the gateway saw, as its audit trail and its approval count need it. */
export interface TrackedProposal {
  id: string;
  proposer: string;
  tool?: string;
  /** The first of its `to`: whose tool would run. */
  target?: string;
  /** Which call it proposes (`callHash`), kept where approvals are counted: tells an edited approval apart. */
  call?: string;
}

/** What the gateway keeps of a routed `mcp/proposal` (`call`: its `callHash`, where approvals are counted). */
export function trackedProposalOf(envelope: { id: string; from: string; to?: readonly string[]; payload?: unknown }, call?: string): TrackedProposal {
  const params = (envelope.payload as { params?: { name?: unknown } } | undefined)?.params;
  const tool = typeof params?.name === 'string' ? params.name : undefined;
  const target = envelope.to?.[0];
  return {
    id: envelope.id,
    proposer: envelope.from,
    ...(tool !== undefined && { tool }),
    ...(target !== undefined && { target }),
    ...(call !== undefined && { call }),
  };
}

/** A request that fulfilled a proposal: whose response is the approved call's outcome. */
export interface TrackedFulfilment extends TrackedProposal {
  approvedBy: string;
}

/**
 * Remembers who proposed what, and which requests fulfilled which proposals (bounded, oldest forgotten first), so
 * the audit log can tell each proposal's trail: proposed → fulfilled or rejected (by whom) → executed (with what
 * outcome), or withdrawn. The proposal's id is the trail's `trace_id`. One per space: ids are only unique within one.
 */
export class ProposalTracker {
  private readonly proposals = new BoundedMap<string, TrackedProposal>(TRACKED_PROPOSALS);
  private readonly fulfilments = new BoundedMap<string, TrackedFulfilment>(TRACKED_PROPOSALS);

  /** Ids are the sender's choice: a second "proposal" reusing a known id does not take the first one over. */
  remember(proposal: TrackedProposal): void {
    if (!this.proposals.has(proposal.id)) this.proposals.set(proposal.id, proposal);
  }

  /** The first tracked proposal among `correlationIds` that `participantId` did not propose. */
  proposedByAnother(correlationIds: readonly string[] | undefined, participantId: string): TrackedProposal | undefined {
    return first(correlationIds, (id) => {
      const proposal = this.proposals.get(id);
      return proposal?.proposer === participantId ? undefined : proposal;
    });
  }

  /** The first tracked proposal among `correlationIds`. */
  find(correlationIds: readonly string[] | undefined): TrackedProposal | undefined {
    return first(correlationIds, (id) => this.proposals.get(id));
  }

  /** `requestId` fulfils `proposal`: its response will be the call's outcome. */
  fulfilled(requestId: string, proposal: TrackedProposal, approvedBy: string): void {
    this.fulfilments.set(requestId, { ...proposal, approvedBy });
  }

  /** The fulfilment a response answers (once: a second response to the same request is not a second outcome). */
  takeFulfilment(correlationIds: readonly string[] | undefined): TrackedFulfilment | undefined {
    for (const id of correlationIds ?? []) {
      const fulfilment = this.fulfilments.get(id);
      if (!fulfilment) continue;
      this.fulfilments.delete(id);
      return fulfilment;
    }
    return undefined;
  }
}

function first<T>(ids: readonly string[] | undefined, lookup: (id: string) => T | undefined): T | undefined {
  for (const id of ids ?? []) {
    const found = lookup(id);
    if (found) return found;
  }
  return undefined;
}
