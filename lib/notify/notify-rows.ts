import type Database from 'better-sqlite3';

/** The notification tables a replica is told of (cluster mode keeps each space's rows in Redis). */
export type NotifyTable = 'push_subscriptions' | 'used_action_tokens' | 'webhooks' | 'webhook_deliveries';

export type NotifyRow = Record<string, string | number | null>;

/**
 * Told of each row written (`row`) or deleted (undefined), by its key within one space's rows of its table, inside
 * the write's transaction: it must not throw.
 */
export type NotifyRowListener = (table: NotifyTable, key: string, row: NotifyRow | undefined) => void;

/** Each table's columns as the schema (notify-schema.ts) created them: row keys read back from a replica are checked against these. */
const columnsByDb = new WeakMap<Database.Database, Map<NotifyTable, ReadonlySet<string>>>();

function columnsOf(db: Database.Database, table: NotifyTable): ReadonlySet<string> {
  let tables = columnsByDb.get(db);
  if (!tables) columnsByDb.set(db, (tables = new Map()));
  let columns = tables.get(table);
  if (!columns) tables.set(table, (columns = new Set((db.pragma(`table_info(${table})`) as { name: string }[]).map((c) => c.name))));
  return columns;
}

/** Writes a row (replacing the one with its primary key), as the tables' owner or as a replica loading them; returns its rowid. */
export function putNotifyRow(db: Database.Database, table: NotifyTable, row: NotifyRow): number {
  const columns = Object.keys(row);
  const unknown = columns.find((column) => !columnsOf(db, table).has(column));
  if (unknown !== undefined) throw new TypeError(`${table} has no column "${unknown}"`);
  const sql = `INSERT OR REPLACE INTO ${table} (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`;
  return Number(db.prepare(sql).run(...Object.values(row)).lastInsertRowid);
}
