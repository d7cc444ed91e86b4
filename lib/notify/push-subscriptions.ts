import type Database from 'better-sqlite3';
import { z } from 'zod';
import { outgoingUrlSchema } from '../protocol';
import { putRow, type ChangeListener } from '../host/change-record';

/** Longest key accepted (a P-256 public key is 87 base64url characters, an auth secret 22). */
const MAX_KEY_CHARS = 256;
const base64url = z
  .string()
  .min(1)
  .max(MAX_KEY_CHARS)
  .regex(/^[A-Za-z0-9_-]+=*$/, 'must be base64url');

/** A browser's `PushSubscription.toJSON()`; `expirationTime` and other fields it may add are ignored. */
export const pushSubscriptionSchema = z.object({
  endpoint: outgoingUrlSchema,
  keys: z.object({ p256dh: base64url, auth: base64url }),
});

export type PushSubscriptionInput = z.infer<typeof pushSubscriptionSchema>;

/** A stored subscription: the browser's, and whose device it is. */
export interface StoredPushSubscription extends PushSubscriptionInput {
  participant: string;
  created_at: string;
}

interface Row {
  participant: string;
  endpoint: string;
  p256dh: string;
  auth: string;
  created_at: string;
}

const toSubscription = (row: Row): StoredPushSubscription => ({
  participant: row.participant,
  endpoint: row.endpoint,
  keys: { p256dh: row.p256dh, auth: row.auth },
  created_at: row.created_at,
});

/** The push subscriptions of every space, in the database: one per endpoint (a device re-subscribing replaces its own). */
export class PushSubscriptions {
  constructor(
    private readonly db: Database.Database,
    private readonly replicate?: ChangeListener,
  ) {}

  save(space: string, participant: string, subscription: PushSubscriptionInput, now: Date): StoredPushSubscription {
    const created_at = now.toISOString();
    const row = { space, participant, endpoint: subscription.endpoint, p256dh: subscription.keys.p256dh, auth: subscription.keys.auth, created_at };
    putRow(this.db, 'push_subscriptions', row);
    this.replicate?.({ table: 'push_subscriptions', key: subscription.endpoint, row });
    return { participant, endpoint: subscription.endpoint, keys: subscription.keys, created_at };
  }

  /** Removes a participant's own subscription; whether there was one. */
  remove(space: string, participant: string, endpoint: string): boolean {
    return this.deleted(
      endpoint,
      this.db.prepare('DELETE FROM push_subscriptions WHERE space = ? AND participant = ? AND endpoint = ?').run(space, participant, endpoint).changes,
    );
  }

  /** The push service says this endpoint is gone (404/410): nobody receives through it any more. */
  forget(space: string, endpoint: string): void {
    this.deleted(endpoint, this.db.prepare('DELETE FROM push_subscriptions WHERE space = ? AND endpoint = ?').run(space, endpoint).changes);
  }

  of(space: string, participant: string): StoredPushSubscription[] {
    return (this.db.prepare('SELECT * FROM push_subscriptions WHERE space = ? AND participant = ? ORDER BY created_at').all(space, participant) as Row[]).map(
      toSubscription,
    );
  }

  all(space: string): StoredPushSubscription[] {
    return (this.db.prepare('SELECT * FROM push_subscriptions WHERE space = ?').all(space) as Row[]).map(toSubscription);
  }

  private deleted(endpoint: string, changes: number): boolean {
    if (changes > 0) this.replicate?.({ table: 'push_subscriptions', key: endpoint, row: null });
    return changes > 0;
  }
}
