import { randomUUID } from 'node:crypto';
import type Database from 'better-sqlite3';
import { z } from 'zod';
import { maskedUrl, outgoingUrlSchema } from './outgoing-url';

/** Deliveries listed per webhook, newest first. */
export const DELIVERY_LOG_LIMIT = 100;
/** Deliveries kept per webhook; older ones are deleted as new ones are logged. */
const DELIVERY_LOG_KEEP = 1000;

export const WEBHOOK_FORMATS = ['slack', 'json'] as const;
export type WebhookFormat = (typeof WEBHOOK_FORMATS)[number];

/** What an operator posts to add a webhook. */
export const webhookInputSchema = z.strictObject({ url: outgoingUrlSchema, format: z.enum(WEBHOOK_FORMATS) });
export type WebhookInput = z.infer<typeof webhookInputSchema>;

export interface Webhook extends WebhookInput {
  id: string;
  created_by: string;
  created_at: string;
}

/** A webhook as the API lists it: the URL masked (its path is usually the credential), with its latest delivery. */
export interface ListedWebhook extends Omit<Webhook, 'url'> {
  url: string;
  last_delivery: WebhookDelivery | null;
}

/** One attempt to deliver one event. */
export interface WebhookDelivery {
  id: number;
  webhook_id: string;
  event: string;
  proposal_id: string;
  attempt: number;
  /** The receiver's HTTP status, or null when no answer came (`error` says why). */
  status: number | null;
  error: string | null;
  at: string;
  /** When the next attempt is due, or null when this was the last. */
  next_retry_at: string | null;
}

/** A space's webhooks and their delivery log, in the database. */
export class Webhooks {
  constructor(
    private readonly db: Database.Database,
    readonly space: string,
  ) {}

  /** Adds a webhook; `alsoWrite` runs in the same transaction (its audit record). */
  add(input: WebhookInput, by: string, now: Date, alsoWrite: (webhook: Webhook) => void): Webhook {
    const webhook: Webhook = { id: randomUUID(), ...input, created_by: by, created_at: now.toISOString() };
    this.db.transaction(() => {
      this.db
        .prepare('INSERT INTO webhooks (space, id, url, format, created_by, created_at) VALUES (?, ?, ?, ?, ?, ?)')
        .run(this.space, webhook.id, webhook.url, webhook.format, webhook.created_by, webhook.created_at);
      alsoWrite(webhook);
    }).immediate();
    return webhook;
  }

  /** Removes a webhook and its log; undefined when there is none. */
  remove(id: string, alsoWrite: (webhook: Webhook) => void): Webhook | undefined {
    return this.db.transaction(() => {
      const webhook = this.get(id);
      if (!webhook) return undefined;
      this.db.prepare('DELETE FROM webhooks WHERE space = ? AND id = ?').run(this.space, id);
      this.db.prepare('DELETE FROM webhook_deliveries WHERE space = ? AND webhook_id = ?').run(this.space, id);
      alsoWrite(webhook);
      return webhook;
    }).immediate();
  }

  get(id: string): Webhook | undefined {
    return this.db.prepare('SELECT id, url, format, created_by, created_at FROM webhooks WHERE space = ? AND id = ?').get(this.space, id) as Webhook | undefined;
  }

  all(): Webhook[] {
    return this.db.prepare('SELECT id, url, format, created_by, created_at FROM webhooks WHERE space = ? ORDER BY created_at, id').all(this.space) as Webhook[];
  }

  listed(): ListedWebhook[] {
    return this.all().map((webhook) => ({ ...webhook, url: maskedUrl(webhook.url), last_delivery: this.deliveries(webhook.id, 1)[0] ?? null }));
  }

  log(delivery: Omit<WebhookDelivery, 'id'>): void {
    const { webhook_id, event, proposal_id, attempt, status, error, at, next_retry_at } = delivery;
    this.db.transaction(() => {
      const { lastInsertRowid } = this.db
        .prepare('INSERT INTO webhook_deliveries (space, webhook_id, event, proposal_id, attempt, status, error, at, next_retry_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)')
        .run(this.space, webhook_id, event, proposal_id, attempt, status, error, at, next_retry_at);
      this.db.prepare('DELETE FROM webhook_deliveries WHERE space = ? AND webhook_id = ? AND id <= ?').run(this.space, webhook_id, Number(lastInsertRowid) - DELIVERY_LOG_KEEP);
    })();
  }

  deliveries(id: string, limit = DELIVERY_LOG_LIMIT): WebhookDelivery[] {
    return this.db
      .prepare('SELECT id, webhook_id, event, proposal_id, attempt, status, error, at, next_retry_at FROM webhook_deliveries WHERE space = ? AND webhook_id = ? ORDER BY id DESC LIMIT ?')
      .all(this.space, id, limit) as WebhookDelivery[];
  }
}
