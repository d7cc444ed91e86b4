import type { AuditSink } from '../gateway/audit-sink';
import type { Gateway } from '../gateway/gateway';
import type { HttpRoute } from '../gateway/http-api';
import type { GatewayDatabase } from '../gateway/persistence/gateway-database';
import type { Space } from '../gateway/space';
import { ActionTokens } from './action-token';
import { KeyedQueue } from './keyed-queue';
import type { NotifyRowListener } from './notify-rows';
import { ensureNotifySchema } from './notify-schema';
import { createProposalActionRoute } from './proposal-action-api';
import { createPushRoute } from './push-api';
import { DEFAULT_PUSH_SUBJECT, PushSender } from './push-sender';
import { PushSubscriptions } from './push-subscriptions';
import { loadServerSecrets, type ServerSecrets } from './server-secrets';
import { SpaceNotifier } from './space-notifier';
import { UsedActionTokens } from './used-action-tokens';
import { DEFAULT_WEBHOOK_RETRY, type WebhookRetryPolicy } from './webhook-delivery';
import { createWebhookRoute } from './webhook-api';
import { Webhooks } from './webhooks';

/** Pushes and webhook deliveries waiting or under way, across spaces, before new ones are dropped. */
const MAX_QUEUED_SENDS = 10_000;

export interface NotifyOptions {
  /** The clock of action tokens and logs (tests move it). @default Date.now */
  now?: () => number;
  /** @default DEFAULT_WEBHOOK_RETRY (5 attempts, 1 s doubling) */
  webhookRetry?: Partial<WebhookRetryPolicy>;
  /** The VAPID subject. @default MEW_PUSH_SUBJECT, else DEFAULT_PUSH_SUBJECT */
  pushSubject?: string;
  /** The origin people reach the control room at, for links in webhooks. @default MEW_PUBLIC_URL, else where the server listens */
  publicUrl?: string;
  /** Where the state is shared with other servers (cluster mode); without it, the database alone holds it. */
  replica?: NotifyReplica;
}

/** Notification state shared beyond this server (cluster mode: in Redis, written by each space's owner). */
export interface NotifyReplica {
  /** The secrets every server shares, used instead of the database's own. */
  secrets: ServerSecrets;
  /** Told of every row written or deleted. */
  replicate: NotifyRowListener;
  /** Whether this server still speaks for the space, asked once per batch of sends: one that does not sends nothing. */
  mayAnnounce: () => Promise<boolean>;
}

/**
 * Notifications you can act on, for every space of a gateway: the VAPID keys and action-token key (minted into the
 * database on first start), one SpaceNotifier per space, and the HTTP routes of push subscriptions, notification
 * actions and webhooks. Everything it sends goes through one bounded queue, off the message path.
 */
export class Notifications {
  readonly routes: HttpRoute[];
  private readonly notifiers = new Map<string, SpaceNotifier>();
  private readonly queue = new KeyedQueue(
    MAX_QUEUED_SENDS,
    (e) => console.error('[notify] send failed:', (e as Error).message),
    (line) => console.error(`[notify] ${line}`),
  );
  private readonly stopping = new AbortController();

  constructor(gateway: Gateway, database: GatewayDatabase, audit: AuditSink, listeningUrl: () => string, options: NotifyOptions = {}) {
    ensureNotifySchema(database.db);
    const { replica } = options;
    const secrets = replica?.secrets ?? loadServerSecrets(database.db);
    const now = options.now ?? Date.now;
    const subscriptions = new PushSubscriptions(database.db, replica?.replicate);
    const tokens = new ActionTokens(secrets.actionKey);
    const push = new PushSender({ subject: options.pushSubject ?? process.env.MEW_PUSH_SUBJECT ?? DEFAULT_PUSH_SUBJECT, ...secrets.vapid });
    const webhooksOf = (space: string) => new Webhooks(database.db, space, replica?.replicate);
    const publicUrl = options.publicUrl ?? process.env.MEW_PUBLIC_URL;
    const baseUrl = () => publicUrl?.replace(/\/+$/, '') ?? listeningUrl();
    for (const space of gateway.spaces.values()) {
      const notifier = new SpaceNotifier(space, {
        subscriptions,
        webhooks: webhooksOf(space.id),
        tokens,
        push,
        queue: this.queue,
        webhookRetry: { ...DEFAULT_WEBHOOK_RETRY, ...options.webhookRetry },
        now,
        baseUrl,
        stop: this.stopping.signal,
        mayAnnounce: replica?.mayAnnounce,
        log: (line) => console.error(`[notify ${space.id}] ${line}`),
      });
      this.notifiers.set(space.id, notifier);
    }
    this.routes = [
      createPushRoute(gateway, subscriptions, secrets.vapid.publicKey, now),
      createProposalActionRoute(gateway, tokens, new UsedActionTokens(database.db, replica?.replicate), (space: Space) => this.notifiers.get(space.id), now),
      createWebhookRoute(gateway, audit, webhooksOf, now),
    ];
  }

  /** Resolves once everything routed so far has been handled and every send under way has finished. */
  async idle(): Promise<void> {
    for (const notifier of this.notifiers.values()) notifier.sync();
    await this.queue.idle();
  }

  /** Stops observing, ends retries, and waits for attempts under way (each bounded by its timeout). */
  async close(): Promise<void> {
    for (const notifier of this.notifiers.values()) notifier.stop();
    this.stopping.abort();
    await this.queue.idle();
  }
}
