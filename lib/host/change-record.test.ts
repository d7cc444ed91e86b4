import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { createTables, putRow, type FeatureTable } from './change-record';

const TABLES: FeatureTable[] = [
  { name: 'tokens_used', schema: 'CREATE TABLE IF NOT EXISTS tokens_used (token_id TEXT PRIMARY KEY, expires_at INTEGER NOT NULL) STRICT;' },
  { name: 'hooks', schema: 'CREATE TABLE IF NOT EXISTS hooks (space TEXT NOT NULL, id TEXT NOT NULL, PRIMARY KEY (space, id)) STRICT;' },
];

describe('feature tables', () => {
  it('writes a row by its columns, replacing the one with its key, and refuses a column its table does not have', () => {
    const db = new Database(':memory:');
    createTables(db, TABLES);
    createTables(db, TABLES); // every start runs the schema again
    putRow(db, 'tokens_used', { token_id: 't1', expires_at: 1 });
    putRow(db, 'tokens_used', { token_id: 't1', expires_at: 2 });
    expect(db.prepare('SELECT * FROM tokens_used').all()).toEqual([{ token_id: 't1', expires_at: 2 }]);
    // Rows come back from Redis in cluster mode: a key that is not a column never reaches the SQL text.
    expect(() => putRow(db, 'tokens_used', { token_id: 't2', 'expires_at) VALUES (1); --': 1 })).toThrow(/has no column/);
    expect(() => putRow(db, 'hooks', { space: 's', token_id: 't3' })).toThrow(/hooks has no column "token_id"/);
    expect(() => putRow(db, 'nothing; DROP TABLE hooks', { a: 1 })).toThrow(/no table/);
    db.close();
  });
});
