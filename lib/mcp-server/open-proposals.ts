import type { GatewayDatabase } from '../gateway/persistence/gateway-database';
import type { Space } from '../gateway/space';
import { type ChangeListener, type FeatureTable, putRow } from '../host/change-record';

export const OPEN_PROPOSAL_TABLES: readonly FeatureTable[] = [
  {
    // The proposals MCP sessions are waiting on. A session lives in the server's memory and ends with it, so a row
    // still here at start is a proposal nobody waits for any more (its client got an error and may call again).
    name: 'mcp_open_proposals',
    schema: `
      CREATE TABLE IF NOT EXISTS mcp_open_proposals (
        space       TEXT NOT NULL,
        proposal_id TEXT NOT NULL,
        participant TEXT NOT NULL,
        sent_at     TEXT NOT NULL,
        PRIMARY KEY (space, proposal_id)
      ) STRICT;`,
  },
];

/** The withdraw of an orphaned proposal, sent as its proposer. */
export interface OrphanWithdraw {
  kind: 'mcp/withdraw';
  correlation_id: [string];
  payload: { reason: string };
}

/** Why an orphaned proposal is withdrawn (the text its supervisors read). */
export const ORPHAN_WITHDRAW_REASON = 'its MCP client lost its session when the server stopped; the client was told the call failed';

/**
 * The proposals this space's MCP sessions wait on (`opened` when sent, `closed` once the call ends, whatever its
 * outcome), kept in a feature table: replicated in a cluster, so a takeover knows them too. At start, those left are
 * withdrawn as their proposers (`withdrawOrphans`): otherwise a client that calls again after the crash would leave
 * two identical proposals, and approving both would run the tool twice.
 */
export class OpenProposals {
  constructor(
    private readonly database: GatewayDatabase,
    private readonly space: string,
    private readonly replicate?: ChangeListener,
  ) {}

  opened(proposalId: string, participant: string): void {
    const row = { space: this.space, proposal_id: proposalId, participant, sent_at: new Date().toISOString() };
    putRow(this.database.db, 'mcp_open_proposals', row);
    this.replicate?.({ table: 'mcp_open_proposals', key: proposalId, row });
  }

  closed(proposalId: string): void {
    const { changes } = this.database.db.prepare('DELETE FROM mcp_open_proposals WHERE space = ? AND proposal_id = ?').run(this.space, proposalId);
    if (changes > 0) this.replicate?.({ table: 'mcp_open_proposals', key: proposalId, row: null });
  }

  /**
   * Withdraws, as its proposer, every proposal a session of an earlier run left open and nobody decided (a decided
   * one is only forgotten); returns how many were withdrawn. Through the gateway's one way in, so the withdraw is
   * checked, routed and audited as the proposer's.
   */
  withdrawOrphans(space: Space, withdraw: (participantId: string, envelope: OrphanWithdraw) => boolean): number {
    const rows = this.database.db.prepare('SELECT proposal_id, participant FROM mcp_open_proposals WHERE space = ?').all(this.space) as {
      proposal_id: string;
      participant: string;
    }[];
    let withdrawn = 0;
    for (const { proposal_id: id, participant } of rows) {
      if (!decided(space, id) && withdraw(participant, { kind: 'mcp/withdraw', correlation_id: [id], payload: { reason: ORPHAN_WITHDRAW_REASON } }))
        withdrawn++;
      this.closed(id);
    }
    return withdrawn;
  }
}

/** Whether the retained history shows the proposal decided or withdrawn already (a fulfilment, a reject, a withdraw). */
function decided(space: Space, proposalId: string): boolean {
  for (const message of space.history.toArray()) {
    const envelope = message.envelope;
    // An approval held short of its quorum is retained for its sender alone: it decided nothing yet.
    if (!envelope?.correlation_id?.includes(proposalId) || message.visibleTo) continue;
    if (envelope.kind === 'mcp/reject' || envelope.kind === 'mcp/withdraw' || envelope.kind === 'mcp/request') return true;
  }
  return false;
}
