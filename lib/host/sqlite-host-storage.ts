import type Database from 'better-sqlite3';
import type { HostStorage } from './host-storage';

/**
 * A single process's storage: its database is the whole of it. Secrets live in `server_secrets`; those an earlier
 * version kept in `notify_secrets` (the VAPID pair as two rows) are carried over once.
 */
export function sqliteHostStorage(db: Database.Database): HostStorage {
  db.exec('CREATE TABLE IF NOT EXISTS server_secrets (name TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT;');
  carryOverNotifySecrets(db);
  const read = db.prepare('SELECT value FROM server_secrets WHERE name = ?').pluck();
  const insert = db.prepare('INSERT OR IGNORE INTO server_secrets (name, value) VALUES (?, ?)');
  return {
    load: async () => undefined,
    replicate: () => undefined,
    secret: async (name, mint) =>
      db
        .transaction(() => {
          const kept = read.get(name) as string | undefined;
          if (kept !== undefined) return kept;
          const value = mint();
          insert.run(name, value);
          return value;
        })
        .immediate(),
    speaksForSpace: async () => true,
    close: () => undefined,
  };
}

function carryOverNotifySecrets(db: Database.Database): void {
  const legacy = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'notify_secrets'").get();
  if (!legacy) return;
  db.transaction(() => {
    const rows = new Map((db.prepare('SELECT name, value FROM notify_secrets').all() as { name: string; value: string }[]).map((r) => [r.name, r.value]));
    const insert = db.prepare('INSERT OR IGNORE INTO server_secrets (name, value) VALUES (?, ?)');
    const publicKey = rows.get('vapid_public_key');
    const privateKey = rows.get('vapid_private_key');
    if (publicKey && privateKey) insert.run('vapid', JSON.stringify({ publicKey, privateKey }));
    const actionKey = rows.get('action_token_key');
    if (actionKey) insert.run('action_token_key', actionKey);
    db.exec('DROP TABLE notify_secrets');
  })();
}
