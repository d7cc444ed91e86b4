import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { putNotifyRow } from './notify-rows';
import { ensureNotifySchema } from './notify-schema';

describe('notification rows', () => {
  it('writes a row by its columns, replacing the one with its key, and refuses a column its table does not have', () => {
    const db = new Database(':memory:');
    ensureNotifySchema(db);
    putNotifyRow(db, 'used_action_tokens', { token_id: 't1', expires_at: 1 });
    putNotifyRow(db, 'used_action_tokens', { token_id: 't1', expires_at: 2 });
    expect(db.prepare('SELECT * FROM used_action_tokens').all()).toEqual([{ token_id: 't1', expires_at: 2 }]);
    // Keys come back from Redis in cluster mode: one that is not a column never reaches the SQL text.
    expect(() => putNotifyRow(db, 'used_action_tokens', { token_id: 't2', 'expires_at) VALUES (1); --': 1 })).toThrow(/has no column/);
    expect(() => putNotifyRow(db, 'webhooks', { space: 's', token_id: 't3' })).toThrow(/webhooks has no column "token_id"/);
    db.close();
  });
});
