import { z } from 'zod';
import { outgoingUrlSchema } from './outgoing-url';

// The webhooks API: `GET`/`POST /api/spaces/{space}/webhooks`, `DELETE …/webhooks/{id}`, `GET …/webhooks/{id}/deliveries`.

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
