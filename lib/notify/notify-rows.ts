import type Database from 'better-sqlite3';

/** The notification tables a replica is told of (cluster mode keeps each space's rows in Redis). */
export type NotifyTable = 'push_subscriptions' | 'used_action_tokens' | 'webhooks' | 'webhook_deliveries';

export type NotifyRow = Record<string, string | number | null>;

/**
 * Told of each row written (`row`) or deleted (undefined), by its key within one space's rows of its table, inside
 * the write's transaction: it must not throw.
 */
export type NotifyRowListener = (table: NotifyTable, key: string, row: NotifyRow | undefined) => void;

const COLUMNS: Record<NotifyTable, ReadonlySet<string>> = {
  push_subscriptions: new Set(['space', 'participant', 'endpoint', 'p256dh', 'auth', 'created_at']),
  used_action_tokens: new Set(['token_id', 'expires_at']),
  webhooks: new Set(['space', 'id', 'url', 'format', 'created_by', 'created_at']),
  webhook_deliveries: new Set(['id', 'space', 'webhook_id', 'event', 'proposal_id', 'attempt', 'status', 'error', 'at', 'next_retry_at']),
};

/** Writes a row (replacing the one with its primary key), as the tables' owner or as a replica loading them; returns its rowid. */
export function putNotifyRow(db: Database.Database, table: NotifyTable, row: NotifyRow): number {
  const columns = Object.keys(row);
  const unknown = columns.find((column) => !COLUMNS[table].has(column));
  if (unknown !== undefined) throw new TypeError(`${table} has no column "${unknown}"`);
  const sql = `INSERT OR REPLACE INTO ${table} (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`;
  return Number(db.prepare(sql).run(...Object.values(row)).lastInsertRowid);
}
