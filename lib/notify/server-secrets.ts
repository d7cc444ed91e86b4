import { createECDH, randomBytes } from 'node:crypto';
import type Database from 'better-sqlite3';

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

/**
 * A new VAPID key pair (base64url): a P-256 key, the public half uncompressed (65 bytes), the private one 32 bytes, as
 * web-push's `generateVAPIDKeys` makes them; made here so that minting one does not load web-push (only sending does).
 */
export function newVapidKeys(): ServerSecrets['vapid'] {
  const curve = createECDH('prime256v1');
  curve.generateKeys();
  const padded = (key: Buffer, bytes: number) => (key.length < bytes ? Buffer.concat([Buffer.alloc(bytes - key.length), key]) : key);
  return { publicKey: padded(curve.getPublicKey(), 65).toString('base64url'), privateKey: padded(curve.getPrivateKey(), 32).toString('base64url') };
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
      let pair: ServerSecrets['vapid'] | undefined;
      const minted = () => (pair ??= newVapidKeys());
      return {
        vapid: { publicKey: secret('vapid_public_key', () => minted().publicKey), privateKey: secret('vapid_private_key', () => minted().privateKey) },
        actionKey: Buffer.from(secret('action_token_key', newActionKey), 'base64url'),
      };
    })
    .immediate();
}
