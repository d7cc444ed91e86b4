import type { FeatureTable } from '../host/change-record';

/**
 * The tables of notifications, in the host's database: participants' push subscriptions, the action tokens already
 * used, and operators' webhooks with their delivery log. (The server's secrets — VAPID keys, the action-token key —
 * are the host storage's.)
 */
export const NOTIFY_TABLES: readonly FeatureTable[] = [
  {
    name: 'push_subscriptions',
    schema: `
      CREATE TABLE IF NOT EXISTS push_subscriptions (
        space       TEXT NOT NULL,
        participant TEXT NOT NULL,
        endpoint    TEXT NOT NULL,
        p256dh      TEXT NOT NULL,
        auth        TEXT NOT NULL,
        created_at  TEXT NOT NULL,
        PRIMARY KEY (space, endpoint)
      ) STRICT;
      CREATE INDEX IF NOT EXISTS push_subscriptions_by_participant ON push_subscriptions (space, participant);`,
  },
  {
    // Remembered until they expire: after that the signature check refuses them anyway.
    name: 'used_action_tokens',
    schema: `
      CREATE TABLE IF NOT EXISTS used_action_tokens (
        token_id   TEXT PRIMARY KEY,
        expires_at INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX IF NOT EXISTS used_action_tokens_by_expiry ON used_action_tokens (expires_at);`,
  },
  {
    name: 'webhooks',
    schema: `
      CREATE TABLE IF NOT EXISTS webhooks (
        space      TEXT NOT NULL,
        id         TEXT NOT NULL,
        url        TEXT NOT NULL,
        format     TEXT NOT NULL CHECK (format IN ('slack', 'json')),
        created_by TEXT NOT NULL,
        created_at TEXT NOT NULL,
        PRIMARY KEY (space, id)
      ) STRICT;`,
  },
  {
    name: 'webhook_deliveries',
    schema: `
      CREATE TABLE IF NOT EXISTS webhook_deliveries (
        id            INTEGER PRIMARY KEY AUTOINCREMENT,
        space         TEXT NOT NULL,
        webhook_id    TEXT NOT NULL,
        event         TEXT NOT NULL,
        proposal_id   TEXT NOT NULL,
        attempt       INTEGER NOT NULL,
        status        INTEGER,
        error         TEXT,
        at            TEXT NOT NULL,
        next_retry_at TEXT
      ) STRICT;
      CREATE INDEX IF NOT EXISTS webhook_deliveries_by_webhook ON webhook_deliveries (space, webhook_id, id);`,
  },
];
