import { randomUUID } from 'node:crypto';
import type Database from 'better-sqlite3';
import { DELIVERY_LOG_LIMIT, deliverySucceeded, maskedUrl, type ListedWebhook, type WebhookDelivery, type WebhookInput } from '../protocol';
import { putRow, type ChangeListener } from '../host/change-record';

/** Deliveries kept per webhook; older ones are deleted as new ones are logged. */
const DELIVERY_LOG_KEEP = 1000;

/** A stored webhook: what the API lists (lib/protocol's `ListedWebhook`), with its URL in full, which only the server sees. */
export type Webhook = Omit<ListedWebhook, 'last_delivery' | 'failing'>;

/** A space's webhooks and their delivery log, in the database. */
export class Webhooks {
  constructor(
    private readonly db: Database.Database,
    readonly space: string,
    private readonly replicate?: ChangeListener,
  ) {}

  /** Adds a webhook; `alsoWrite` runs in the same transaction (its audit record). */
  add(input: WebhookInput, by: string, now: Date, alsoWrite: (webhook: Webhook) => void): Webhook {
    const webhook: Webhook = { id: randomUUID(), ...input, created_by: by, created_at: now.toISOString() };
    this.db
      .transaction(() => {
        const row = { space: this.space, ...webhook };
        putRow(this.db, 'webhooks', row);
        this.replicate?.({ table: 'webhooks', key: webhook.id, row });
        alsoWrite(webhook);
      })
      .immediate();
    return webhook;
  }

  /** Removes a webhook and its log; undefined when there is none. */
  remove(id: string, alsoWrite: (webhook: Webhook) => void): Webhook | undefined {
    return this.db
      .transaction(() => {
        const webhook = this.get(id);
        if (!webhook) return undefined;
        this.db.prepare('DELETE FROM webhooks WHERE space = ? AND id = ?').run(this.space, id);
        this.replicate?.({ table: 'webhooks', key: id, row: null });
        this.deleteDeliveries('DELETE FROM webhook_deliveries WHERE space = ? AND webhook_id = ? RETURNING id', id);
        alsoWrite(webhook);
        return webhook;
      })
      .immediate();
  }

  get(id: string): Webhook | undefined {
    return this.db.prepare('SELECT id, url, format, created_by, created_at FROM webhooks WHERE space = ? AND id = ?').get(this.space, id) as
      | Webhook
      | undefined;
  }

  all(): Webhook[] {
    return this.db.prepare('SELECT id, url, format, created_by, created_at FROM webhooks WHERE space = ? ORDER BY created_at, id').all(this.space) as Webhook[];
  }

  listed(): ListedWebhook[] {
    return this.all().map((webhook) => {
      const last = this.latest(webhook.id);
      return { ...webhook, url: maskedUrl(webhook.url), last_delivery: last, failing: last !== null && !deliverySucceeded(last) };
    });
  }

  /** The webhook's latest attempt, or null before its first. */
  latest(id: string): WebhookDelivery | null {
    return this.deliveries(id, 1)[0] ?? null;
  }

  /** Logs an attempt; returns it as listed (with its id). */
  log(delivery: Omit<WebhookDelivery, 'id'>): WebhookDelivery {
    const { webhook_id, event, proposal_id, attempt, status, error, at, next_retry_at } = delivery;
    return this.db.transaction(() => {
      const row = { space: this.space, webhook_id, event, proposal_id, attempt, status, error, at, next_retry_at };
      const id = putRow(this.db, 'webhook_deliveries', row);
      this.replicate?.({ table: 'webhook_deliveries', key: String(id), row: { id, ...row } });
      this.deleteDeliveries('DELETE FROM webhook_deliveries WHERE space = ? AND webhook_id = ? AND id <= ? RETURNING id', webhook_id, id - DELIVERY_LOG_KEEP);
      return { id, ...delivery };
    })();
  }

  deliveries(id: string, limit = DELIVERY_LOG_LIMIT): WebhookDelivery[] {
    return this.db
      .prepare(
        'SELECT id, webhook_id, event, proposal_id, attempt, status, error, at, next_retry_at FROM webhook_deliveries WHERE space = ? AND webhook_id = ? ORDER BY id DESC LIMIT ?',
      )
      .all(this.space, id, limit) as WebhookDelivery[];
  }

  /** Runs a DELETE of this space's deliveries (`… RETURNING id`) and tells the replica which went. */
  private deleteDeliveries(sql: string, ...params: (string | number)[]): void {
    const ids = this.db
      .prepare(sql)
      .pluck()
      .all(this.space, ...params) as number[];
    for (const id of ids) this.replicate?.({ table: 'webhook_deliveries', key: String(id), row: null });
  }
}
