import type Database from 'better-sqlite3';

/** A row of a feature's table, by column name. */
export type TableRow = Record<string, string | number | null>;

/**
 * One change of one row of a feature's table, the one format a host's storage replicates: `row` is the row as
 * written (replacing the one with the same `key`), null when it was deleted. `key` names the row within one space's
 * rows of `table`.
 */
export interface ChangeRecord {
  table: string;
  key: string;
  row: TableRow | null;
}

/** Told of each change inside the write's transaction: it must not throw. */
export type ChangeListener = (change: ChangeRecord) => void;

/** A table a feature keeps in the host's database: created when a host starts, replicated in a cluster. */
export interface FeatureTable {
  name: string;
  /** `CREATE TABLE IF NOT EXISTS …` (and its indexes): run at every start, so it must be idempotent. */
  schema: string;
}

/** Each table's columns as its schema created them: rows read back from a replica are checked against these. */
const columnsByDb = new WeakMap<Database.Database, Map<string, ReadonlySet<string>>>();

function columnsOf(db: Database.Database, table: string): ReadonlySet<string> {
  let tables = columnsByDb.get(db);
  if (!tables) columnsByDb.set(db, (tables = new Map()));
  let columns = tables.get(table);
  if (!columns) {
    columns = new Set((db.pragma(`table_info(${JSON.stringify(table)})`) as { name: string }[]).map((c) => c.name));
    if (columns.size === 0) throw new TypeError(`no table "${table}"`);
    tables.set(table, columns);
  }
  return columns;
}

/**
 * Writes a row (replacing the one with its primary key), as the table's owner or as a replica applying what its
 * owners wrote; returns its rowid. Columns are checked against the table's, so a row from elsewhere cannot name SQL.
 */
export function putRow(db: Database.Database, table: string, row: TableRow): number {
  const columns = Object.keys(row);
  const known = columnsOf(db, table);
  const unknown = columns.find((column) => !known.has(column));
  if (unknown !== undefined) throw new TypeError(`${table} has no column "${unknown}"`);
  const sql = `INSERT OR REPLACE INTO ${table} (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`;
  return Number(db.prepare(sql).run(...Object.values(row)).lastInsertRowid);
}

/** Creates the tables (those that exist are kept as they are). */
export function createTables(db: Database.Database, tables: readonly FeatureTable[]): void {
  for (const table of tables) db.exec(table.schema);
}
