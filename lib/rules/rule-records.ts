import { randomUUID } from 'node:crypto';
import { approvalRuleInputSchema, ruleInputOf, type ApprovalRule, type ApprovalRuleInput, type RuleEventType, type RuleStats } from './approval-rule';
import type { GatewayDatabase } from '../gateway/persistence/gateway-database';
import { putRow, type ChangeListener, type FeatureTable, type TableRow } from '../host/change-record';

interface RuleRow {
  id: string;
  version: number;
  data: string;
  created_by: string;
  created_at: string;
  deleted: number;
}

/** The tables of rules, both append-only. */
export const RULE_TABLES: readonly FeatureTable[] = [
  {
    // Every version kept (an edit is a new version; a deletion marks the id deleted).
    name: 'approval_rules',
    schema: `
      CREATE TABLE IF NOT EXISTS approval_rules (
        space      TEXT NOT NULL,
        id         TEXT NOT NULL,
        version    INTEGER NOT NULL,
        data       TEXT NOT NULL CHECK (json_valid(data)),
        created_by TEXT NOT NULL,
        created_at TEXT NOT NULL,
        deleted    INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (space, id, version)
      ) STRICT;`,
  },
  {
    // What rules did: a decision (hit), what a shadow rule would have decided (shadow_hit), and a shadow approve that
    // a human then rejected (shadow_conflict). Counts and the last hit on the rules view come from here.
    name: 'rule_events',
    schema: `
      CREATE TABLE IF NOT EXISTS rule_events (
        space       TEXT NOT NULL,
        rule_id     TEXT NOT NULL,
        version     INTEGER NOT NULL,
        event       TEXT NOT NULL CHECK (event IN ('hit', 'shadow_hit', 'shadow_conflict')),
        decision    TEXT NOT NULL,
        proposal_id TEXT NOT NULL,
        at          TEXT NOT NULL
      ) STRICT;
      CREATE INDEX IF NOT EXISTS rule_events_by_rule ON rule_events (space, rule_id);`,
  },
];

/**
 * A space's approval rules in the gateway's database, every version kept: an edit writes version n+1 of the same
 * id, a deletion writes a last version marked deleted, so what a rule said when it decided stays on file.
 * `alsoWrite` runs in the same transaction (the change's audit record).
 */
export class RuleRecords {
  constructor(
    private readonly database: GatewayDatabase,
    private readonly space: string,
    private readonly replicate?: ChangeListener,
  ) {}

  /** The current version of every rule that is not deleted, oldest first. */
  list(): ApprovalRule[] {
    const rows = this.database.db
      .prepare(
        `SELECT r.* FROM approval_rules r
         JOIN (SELECT id, max(version) AS version FROM approval_rules WHERE space = ? GROUP BY id) latest
           ON latest.id = r.id AND latest.version = r.version
         WHERE r.space = ? AND r.deleted = 0 ORDER BY r.created_at, r.id`,
      )
      .all(this.space, this.space) as RuleRow[];
    return rows.map(toRule);
  }

  /** Each current rule with what it has done (every version counted). */
  listWithStats(): (ApprovalRule & RuleStats)[] {
    const rows = this.database.db
      .prepare(
        `SELECT rule_id,
                sum(event = 'hit') AS hits, sum(event = 'shadow_hit') AS shadow_hits, sum(event = 'shadow_conflict') AS shadow_conflicts,
                max(CASE WHEN event != 'shadow_conflict' THEN at END) AS last_hit_at
         FROM rule_events WHERE space = ? GROUP BY rule_id`,
      )
      .all(this.space) as ({ rule_id: string } & RuleStats)[];
    const stats = new Map(rows.map((row) => [row.rule_id, row]));
    return this.list().map((rule) => {
      const row = stats.get(rule.id);
      return {
        ...rule,
        hits: row?.hits ?? 0,
        shadow_hits: row?.shadow_hits ?? 0,
        shadow_conflicts: row?.shadow_conflicts ?? 0,
        last_hit_at: row?.last_hit_at ?? null,
      };
    });
  }

  /** Records what `rule` did with a proposal (off the decision's path: the decision was already sent). */
  recordEvent(rule: Pick<ApprovalRule, 'id' | 'version' | 'decision'>, event: RuleEventType, proposalId: string, at = new Date()): void {
    const row = { space: this.space, rule_id: rule.id, version: rule.version, event, decision: rule.decision, proposal_id: proposalId, at: at.toISOString() };
    // One event of a kind per rule version and proposal.
    this.insertRow('rule_events', `${rule.id}/${rule.version}/${event}/${proposalId}`, row);
  }

  get(id: string): ApprovalRule | undefined {
    const row = this.latest(id);
    return row && !row.deleted ? toRule(row) : undefined;
  }

  create(input: ApprovalRuleInput, by: string, alsoWrite?: (rule: ApprovalRule) => void): ApprovalRule {
    return this.write(randomUUID(), 1, input, by, false, alsoWrite);
  }

  /** A new version of rule `id`; undefined when there is no such rule. */
  update(id: string, input: ApprovalRuleInput, by: string, alsoWrite?: (rule: ApprovalRule) => void): ApprovalRule | undefined {
    const current = this.get(id);
    return current && this.write(id, current.version + 1, input, by, false, alsoWrite);
  }

  /** Marks rule `id` deleted (a last version); undefined when there is no such rule. */
  remove(id: string, by: string, alsoWrite?: (rule: ApprovalRule) => void): ApprovalRule | undefined {
    const current = this.get(id);
    if (!current) return undefined;
    return this.write(id, current.version + 1, ruleInputOf(current), by, true, alsoWrite);
  }

  /**
   * Deletes the rules bound to a participant's session (`for_session_of`): that participant's when it left, or every
   * one when the server starts (no session outlives it). Returns how many ended.
   */
  endSessions(participant: string | undefined, by: string, alsoWrite?: (rule: ApprovalRule) => void): number {
    const ended = this.list().filter((rule) => rule.for_session_of !== undefined && (participant === undefined || rule.for_session_of === participant));
    for (const rule of ended) this.remove(rule.id, by, alsoWrite);
    return ended.length;
  }

  private write(id: string, version: number, input: ApprovalRuleInput, by: string, deleted: boolean, alsoWrite?: (rule: ApprovalRule) => void): ApprovalRule {
    const rule: ApprovalRule = { ...approvalRuleInputSchema.parse(input), id, version, created_by: by, created_at: new Date().toISOString() };
    const { id: _id, version: _version, created_by, created_at, ...data } = rule;
    this.database.transaction(() => {
      const row = { space: this.space, id, version, data: JSON.stringify(data), created_by, created_at, deleted: deleted ? 1 : 0 };
      this.insertRow('approval_rules', `${id}/${version}`, row);
      alsoWrite?.(rule);
    });
    return rule;
  }

  private insertRow(table: 'approval_rules' | 'rule_events', key: string, row: TableRow): void {
    putRow(this.database.db, table, row);
    this.replicate?.({ table, key, row });
  }

  private latest(id: string): RuleRow | undefined {
    return this.database.db.prepare('SELECT * FROM approval_rules WHERE space = ? AND id = ? ORDER BY version DESC LIMIT 1').get(this.space, id) as
      | RuleRow
      | undefined;
  }
}

function toRule(row: RuleRow): ApprovalRule {
  return { ...approvalRuleInputSchema.parse(JSON.parse(row.data)), id: row.id, version: row.version, created_by: row.created_by, created_at: row.created_at };
}
