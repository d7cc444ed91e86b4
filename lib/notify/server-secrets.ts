import type { HostStorage } from '../host/host-storage';
import { createECDH, randomBytes } from 'node:crypto';

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

/** Reads the secrets, minting each one that is missing (never replacing one that exists); the VAPID pair is one secret, so its halves always match. */
export async function loadServerSecrets(secret: HostStorage['secret']): Promise<ServerSecrets> {
  const [vapid, actionKey] = await Promise.all([secret('vapid', () => JSON.stringify(newVapidKeys())), secret('action_token_key', newActionKey)]);
  const { publicKey, privateKey } = JSON.parse(vapid) as ServerSecrets['vapid'];
  return { vapid: { publicKey, privateKey }, actionKey: Buffer.from(actionKey, 'base64url') };
}
