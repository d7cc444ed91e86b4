import { BoundedMap } from '../collections/bounded-map';

/** How many recent proposals the gateway remembers to audit their fulfilment or rejection. */
const TRACKED_PROPOSALS = 10_000;

/**
 * Remembers who proposed what (bounded, oldest forgotten first), so the audit log can name the proposer
 * when a later `mcp/request` fulfils a proposal or an `mcp/reject` refuses it.
 */
export class ProposalTracker {
  private readonly proposers = new BoundedMap<string, { proposer: string; tool?: string }>(TRACKED_PROPOSALS);

  remember(id: string, proposer: string, tool?: string): void {
    this.proposers.set(id, { proposer, tool });
  }

  /** The first tracked proposal among `correlationIds`. */
  find(correlationIds: readonly string[] | undefined): { id: string; proposer: string; tool?: string } | undefined {
    for (const id of correlationIds ?? []) {
      const entry = this.proposers.get(id);
      if (entry) return { id, ...entry };
    }
    return undefined;
  }
}
