import { randomBytes } from 'node:crypto';
import type Database from 'better-sqlite3';
import webpush from 'web-push';

/** Bytes of the HMAC-SHA256 key that signs action tokens. */
const ACTION_KEY_BYTES = 32;

/** The server's own secrets, minted on first start into the database (mode 0600) and kept across restarts. */
export interface ServerSecrets {
  /** Web Push VAPID keys (base64url): the public one is handed to browsers, the private one signs each push. */
  vapid: { publicKey: string; privateKey: string };
  /** Signs action tokens. */
  actionKey: Buffer;
}

/** A new key for signing action tokens (base64url), as the secrets keep it. */
export function newActionKey(): string {
  return randomBytes(ACTION_KEY_BYTES).toString('base64url');
}

/** Reads the secrets, minting each one that is missing (never replacing one that exists). */
export function loadServerSecrets(db: Database.Database): ServerSecrets {
  const read = db.prepare('SELECT value FROM notify_secrets WHERE name = ?').pluck();
  const insert = db.prepare('INSERT OR IGNORE INTO notify_secrets (name, value) VALUES (?, ?)');
  const secret = (name: string, mint: () => string): string => {
    const kept = read.get(name) as string | undefined;
    if (kept !== undefined) return kept;
    const value = mint();
    insert.run(name, value);
    return value;
  };
  return db
    .transaction(() => {
      let pair: webpush.VapidKeys | undefined;
      const minted = () => (pair ??= webpush.generateVAPIDKeys());
      return {
        vapid: { publicKey: secret('vapid_public_key', () => minted().publicKey), privateKey: secret('vapid_private_key', () => minted().privateKey) },
        actionKey: Buffer.from(secret('action_token_key', newActionKey), 'base64url'),
      };
    })
    .immediate();
}
