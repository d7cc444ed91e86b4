import type { ChangeListener } from '../host/change-record';
import type { AuditSink } from '../gateway/audit-sink';
import type { Gateway } from '../gateway/gateway';
import type { HttpRoute } from '../gateway/http-api';
import type { GatewayDatabase } from '../gateway/persistence/gateway-database';
import type { Space } from '../gateway/space';
import { WEBHOOK_TEST_EVENT } from '../protocol';
import { ActionTokens } from './action-token';
import { AlertChannels } from './alert-channels';
import { KeyedQueue } from './keyed-queue';
import { createProposalActionRoute } from './proposal-action-api';
import { createPushRoute } from './push-api';
import { DEFAULT_PUSH_SUBJECT, PushSender } from './push-sender';
import { PushSubscriptions } from './push-subscriptions';
import type { ServerSecrets } from './server-secrets';
import { SpaceNotifier } from './space-notifier';
import { UsedActionTokens } from './used-action-tokens';
import { DEFAULT_WEBHOOK_RETRY, deliverWebhook, WEBHOOK_SINGLE_ATTEMPT, type WebhookRetryPolicy } from './webhook-delivery';
import { testWebhookBody } from './webhook-payload';
import { createWebhookRoute } from './webhook-api';
import { Webhooks } from './webhooks';

/** Pushes and webhook deliveries waiting or under way for one space, before new ones are dropped. */
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
}

/** What a space's notifications are built on, given by its host. */
export interface NotificationsDeps {
  space: Space;
  gateway: Gateway;
  database: GatewayDatabase;
  audit: AuditSink;
  /** The deployment's secrets (the same on every server of a cluster). */
  secrets: ServerSecrets;
  /** Told of every row written or deleted (a cluster owner replicates it). */
  replicate?: ChangeListener;
  /** Whether this server still speaks for the space, asked once per batch of sends: one that does not sends nothing. */
  mayAnnounce?: () => Promise<boolean>;
  /** This server's own HTTP origin, for links when no public URL is set. */
  listeningUrl: string;
  /** Whether a participant's tool was redefined since it was pinned: its calls are confirmed on the page only. */
  toolChanged?: (participant: string, tool: string) => boolean;
}

/**
 * Notifications you can act on, for one space: its SpaceNotifier, and the HTTP routes of push subscriptions,
 * notification actions and webhooks. Everything it sends goes through one bounded queue, off the message path.
 */
export class Notifications {
  readonly routes: HttpRoute[];
  private readonly notifier: SpaceNotifier;
  private readonly queue = new KeyedQueue(
    MAX_QUEUED_SENDS,
    (e) => console.error('[notify] send failed:', (e as Error).message),
    (line) => console.error(`[notify] ${line}`),
  );
  private readonly stopping = new AbortController();

  constructor(deps: NotificationsDeps, options: NotifyOptions = {}) {
    const { space, gateway, database, secrets, replicate } = deps;
    const now = options.now ?? Date.now;
    const subscriptions = new PushSubscriptions(database.db, replicate);
    const tokens = new ActionTokens(secrets.actionKey);
    const push = new PushSender({ subject: options.pushSubject ?? process.env.MEW_PUSH_SUBJECT ?? DEFAULT_PUSH_SUBJECT, ...secrets.vapid });
    const webhooks = new Webhooks(database.db, space.id, replicate);
    const publicUrl = options.publicUrl ?? process.env.MEW_PUBLIC_URL;
    const baseUrl = () => publicUrl?.replace(/\/+$/, '') ?? deps.listeningUrl;
    const channels = new AlertChannels(space, now);
    this.notifier = new SpaceNotifier(space, {
      subscriptions,
      webhooks,
      tokens,
      push,
      queue: this.queue,
      webhookRetry: { ...DEFAULT_WEBHOOK_RETRY, ...options.webhookRetry },
      channels,
      now,
      baseUrl,
      stop: this.stopping.signal,
      mayAnnounce: deps.mayAnnounce,
      toolChanged: deps.toolChanged,
      log: (line) => console.error(`[notify ${space.id}] ${line}`),
    });
    this.routes = [
      createPushRoute(gateway, subscriptions, secrets.vapid.publicKey, now, (endpoint) => channels.pushFailure(endpoint)),
      createProposalActionRoute(gateway, tokens, new UsedActionTokens(database.db, replicate), () => this.notifier, now),
      createWebhookRoute(
        gateway,
        deps.audit,
        () => webhooks,
        now,
        (webhook, by) => {
          // The delivery path of every event (postOutgoing, the log, the failing signal), one attempt, answered at once.
          const body = testWebhookBody(webhook.format, space.id, by, now(), `${baseUrl()}/spaces/${encodeURIComponent(space.id)}`);
          const delivery = { event: WEBHOOK_TEST_EVENT, proposalId: '', body };
          return deliverWebhook(webhooks, webhook, delivery, WEBHOOK_SINGLE_ATTEMPT, now, this.stopping.signal, channels.webhookTurnedFailing);
        },
      ),
    ];
  }

  /** Resolves once everything routed so far has been handled and every send under way has finished. */
  async idle(): Promise<void> {
    this.notifier.sync();
    await this.queue.idle();
  }

  /** Stops observing, ends retries, and waits for attempts under way (each bounded by its timeout). */
  async close(): Promise<void> {
    this.notifier.stop();
    this.stopping.abort();
    await this.queue.idle();
  }
}
