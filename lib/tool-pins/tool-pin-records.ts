import type { GatewayDatabase } from '../gateway/persistence/gateway-database';
import { putRow, type ChangeListener, type FeatureTable, type TableRow } from '../host/change-record';
import type { ToolPin } from '../protocol';
import type { ToolDefinition } from './tool-definition';

export const TOOL_PIN_TABLES: readonly FeatureTable[] = [
  {
    // Each tool's first definition seen (pinned), and its current one when that differs (changed).
    name: 'tool_pins',
    schema: `
      CREATE TABLE IF NOT EXISTS tool_pins (
        space              TEXT NOT NULL,
        participant        TEXT NOT NULL,
        tool               TEXT NOT NULL,
        pinned_hash        TEXT NOT NULL,
        pinned_definition  TEXT NOT NULL CHECK (json_valid(pinned_definition)),
        current_hash       TEXT NOT NULL,
        current_definition TEXT NOT NULL CHECK (json_valid(current_definition)),
        first_seen_at      TEXT NOT NULL,
        changed_at         TEXT,
        accepted_by        TEXT,
        accepted_at        TEXT,
        PRIMARY KEY (space, participant, tool)
      ) STRICT;`,
  },
];

interface PinRow {
  participant: string;
  tool: string;
  pinned_hash: string;
  pinned_definition: string;
  current_hash: string;
  current_definition: string;
  first_seen_at: string;
  changed_at: string | null;
  accepted_by: string | null;
  accepted_at: string | null;
}

/** What a definition seen changed: nothing, a first pin, or a change from the pin (with the hash it was pinned at). */
export type PinObservation = { kind: 'same' } | { kind: 'pinned' } | { kind: 'changed'; pinnedHash: string } | { kind: 'restored' };

/** A tool's hashes as its row holds them. */
interface PinHashes {
  current: string;
  pinned: string;
}

/**
 * A space's pinned tool definitions in the host's database; every row written is told to `replicate`. Each tool's
 * hashes are also kept in memory, read from the database at start (after a cluster owner's takeover has loaded the
 * rows) and kept in step with every row this writes (no one else writes them while it runs), so the rule
 * supervisor's `changed` on every proposal, and a `tools/list` answered again unchanged, cost no query.
 */
export class ToolPinRecords {
  /** participant → tool → the hashes of its row. */
  private readonly hashes = new Map<string, Map<string, PinHashes>>();

  constructor(
    private readonly database: GatewayDatabase,
    private readonly space: string,
    private readonly replicate?: ChangeListener,
  ) {
    const rows = database.db.prepare('SELECT participant, tool, current_hash, pinned_hash FROM tool_pins WHERE space = ?').all(space) as Pick<
      PinRow,
      'participant' | 'tool' | 'current_hash' | 'pinned_hash'
    >[];
    for (const row of rows) this.remember(row);
  }

  /** Records a definition seen in a `tools/list` answer. */
  observe(participant: string, definition: ToolDefinition, hash: string, now = new Date()): PinObservation {
    if (this.hashes.get(participant)?.get(definition.name)?.current === hash) return { kind: 'same' };
    const current = this.row(participant, definition.name);
    const at = now.toISOString();
    const text = JSON.stringify(definition);
    if (!current) {
      this.write({
        participant,
        tool: definition.name,
        pinned_hash: hash,
        pinned_definition: text,
        current_hash: hash,
        current_definition: text,
        first_seen_at: at,
        changed_at: null,
        accepted_by: null,
        accepted_at: null,
      });
      return { kind: 'pinned' };
    }
    if (current.pinned_hash === hash) {
      this.write({ ...current, current_hash: hash, current_definition: text, changed_at: null });
      return { kind: 'restored' };
    }
    this.write({ ...current, current_hash: hash, current_definition: text, changed_at: at });
    return { kind: 'changed', pinnedHash: current.pinned_hash };
  }

  /** Pins a tool's current definition (an operator accepted it); undefined when there is no such tool. */
  accept(participant: string, tool: string, by: string, alsoWrite?: () => void, now = new Date()): ToolPin | undefined {
    const current = this.row(participant, tool);
    if (!current) return undefined;
    const accepted: PinRow = {
      ...current,
      pinned_hash: current.current_hash,
      pinned_definition: current.current_definition,
      changed_at: null,
      accepted_by: by,
      accepted_at: now.toISOString(),
    };
    try {
      this.database.transaction(() => {
        this.write(accepted);
        alsoWrite?.();
      });
    } catch (error) {
      this.remember(current); // rolled back
      throw error;
    }
    return listingOf(accepted);
  }

  /** Whether a tool's current definition differs from its pin (unknown tools are not changed: nothing was trusted). */
  changed(participant: string, tool: string): boolean {
    const pin = this.hashes.get(participant)?.get(tool);
    return pin !== undefined && pin.current !== pin.pinned;
  }

  /** Both definitions of a tool, for a diff. */
  definitions(participant: string, tool: string): { pinned: ToolDefinition; current: ToolDefinition } | undefined {
    const row = this.row(participant, tool);
    return row && { pinned: JSON.parse(row.pinned_definition) as ToolDefinition, current: JSON.parse(row.current_definition) as ToolDefinition };
  }

  /** Every tool's current definition, as the space last saw it listed, by participant. */
  currentDefinitions(): { participant: string; definition: ToolDefinition }[] {
    const rows = this.database.db
      .prepare('SELECT participant, current_definition FROM tool_pins WHERE space = ? ORDER BY participant, tool')
      .all(this.space) as Pick<PinRow, 'participant' | 'current_definition'>[];
    return rows.map((row) => ({ participant: row.participant, definition: JSON.parse(row.current_definition) as ToolDefinition }));
  }

  list(): ToolPin[] {
    return this.rows().map(listingOf);
  }

  private rows(): PinRow[] {
    return this.database.db.prepare('SELECT * FROM tool_pins WHERE space = ? ORDER BY participant, tool').all(this.space) as PinRow[];
  }

  private row(participant: string, tool: string): PinRow | undefined {
    return this.database.db.prepare('SELECT * FROM tool_pins WHERE space = ? AND participant = ? AND tool = ?').get(this.space, participant, tool) as
      | PinRow
      | undefined;
  }

  private write(row: PinRow): void {
    const full: TableRow = { space: this.space, ...row };
    putRow(this.database.db, 'tool_pins', full);
    this.remember(row);
    this.replicate?.({ table: 'tool_pins', key: JSON.stringify([row.participant, row.tool]), row: full });
  }

  private remember({ participant, tool, current_hash, pinned_hash }: Pick<PinRow, 'participant' | 'tool' | 'current_hash' | 'pinned_hash'>): void {
    let tools = this.hashes.get(participant);
    if (!tools) this.hashes.set(participant, (tools = new Map()));
    tools.set(tool, { current: current_hash, pinned: pinned_hash });
  }
}

function listingOf(row: PinRow): ToolPin {
  return {
    participant: row.participant,
    name: row.tool,
    hash: row.current_hash,
    pinned_hash: row.pinned_hash,
    changed: row.current_hash !== row.pinned_hash,
    first_seen_at: row.first_seen_at,
    ...(row.changed_at && { changed_at: row.changed_at }),
    ...(row.accepted_by && { accepted_by: row.accepted_by, accepted_at: row.accepted_at ?? undefined }),
  };
}
