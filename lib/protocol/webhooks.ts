import { z } from 'zod';
import { outgoingUrlSchema } from './outgoing-url';

// The webhooks API: `GET`/`POST /api/spaces/{space}/webhooks`, `DELETE …/webhooks/{id}`, `GET …/webhooks/{id}/deliveries`,
// `POST …/webhooks/{id}/test`; and what `GET /api/spaces/{space}/push/subscriptions` says of a device's health.

/** Deliveries `GET …/webhooks/{id}/deliveries` lists per webhook, newest first. */
export const DELIVERY_LOG_LIMIT = 100;

export const WEBHOOK_FORMATS = ['slack', 'json'] as const;
export type WebhookFormat = (typeof WEBHOOK_FORMATS)[number];

/** What an operator posts to add a webhook. */
export const webhookInputSchema = z.strictObject({ url: outgoingUrlSchema, format: z.enum(WEBHOOK_FORMATS) });
export type WebhookInput = z.infer<typeof webhookInputSchema>;

/** A webhook as the API lists it: the URL masked (its path is usually the credential), with its latest delivery. */
export interface ListedWebhook extends WebhookInput {
  id: string;
  /** Masked: its origin and the end of its path (`maskedUrl`). */
  url: string;
  created_by: string;
  created_at: string;
  last_delivery: WebhookDelivery | null;
  /** Whether its latest attempt failed (a retry may still be due): the control room's header flags it. */
  failing: boolean;
}

/** The event a test delivery carries (`POST …/webhooks/{id}/test`); its `proposal_id` is empty. */
export const WEBHOOK_TEST_EVENT = 'webhook.test';

/** Whether an attempt succeeded: the receiver answered 2xx. */
export function deliverySucceeded(delivery: Pick<WebhookDelivery, 'status'>): boolean {
  return delivery.status !== null && delivery.status >= 200 && delivery.status < 300;
}

/** One attempt to deliver one event. */
export interface WebhookDelivery {
  id: number;
  webhook_id: string;
  /** `proposal.pending`, … or {@link WEBHOOK_TEST_EVENT}. */
  event: string;
  /** The proposal it told of (empty for a test). */
  proposal_id: string;
  attempt: number;
  /** The receiver's HTTP status, or null when no answer came (`error` says why). */
  status: number | null;
  error: string | null;
  at: string;
  /** When the next attempt is due, or null when this was the last. */
  next_retry_at: string | null;
}

/** The body of `GET /api/spaces/{space}/webhooks`. */
export interface WebhookList {
  webhooks: ListedWebhook[];
}

/** The body of `POST /api/spaces/{space}/webhooks` (201): the webhook added, as it is listed. */
export interface AddedWebhook {
  webhook: ListedWebhook;
}

/** The body of `GET /api/spaces/{space}/webhooks/{id}/deliveries`: at most {@link DELIVERY_LOG_LIMIT}, newest first. */
export interface WebhookDeliveryLog {
  deliveries: WebhookDelivery[];
}

/** The body of `POST /api/spaces/{space}/webhooks/{id}/test` (200 whatever the receiver answered): the one attempt made. */
export interface WebhookTestResult {
  delivery: WebhookDelivery;
}

/** A device's pushes failing since the last one that went through (`GET …/push/subscriptions`). */
export interface PushFailure {
  /** Why the latest failed: `HTTP 500`, `no answer within 10000 ms`. */
  error: string;
  /** Failed pushes in a row. */
  failures: number;
  /** When the latest failed (ISO 8601). */
  at: string;
}

/** One of the caller's own push subscriptions as `GET /api/spaces/{space}/push/subscriptions` lists it. */
export interface ListedPushSubscription {
  endpoint: string;
  created_at: string;
  /** Null while its pushes go through (or none was sent yet). */
  failing: PushFailure | null;
}

/** The body of `GET /api/spaces/{space}/push/subscriptions`. */
export interface PushSubscriptionList {
  subscriptions: ListedPushSubscription[];
}
