import { setTimeout as sleep } from 'node:timers/promises';
import { deliverySucceeded, type WebhookDelivery } from '../protocol';
import { backoffDelay } from '../sdk/backoff';
import { postOutgoing } from './outgoing-post';
import type { Webhook, Webhooks } from './webhooks';

/** Attempts per event, the first included. */
export const WEBHOOK_MAX_ATTEMPTS = 5;
/** Wait before the second attempt; each further one waits twice as long (1, 2, 4, 8 s). */
export const WEBHOOK_FIRST_RETRY_MS = 1000;
/** Growth of the wait per failed attempt (`backoffDelay`'s exponent; no jitter, no cap: attempts are few). */
export const WEBHOOK_RETRY_EXPONENT = 2;
/** How long a receiver may take to answer one attempt. */
export const WEBHOOK_TIMEOUT_MS = 10_000;
const WEBHOOK_HEADERS = { 'Content-Type': 'application/json', 'User-Agent': 'mew-dashboard-webhook' };
/** Client errors worth retrying: the receiver timed out or is rate limiting; any other 4xx will not change. */
const RETRIED_CLIENT_ERRORS: ReadonlySet<number> = new Set([408, 429]);

export interface WebhookRetryPolicy {
  maxAttempts: number;
  firstRetryMs: number;
}

export const DEFAULT_WEBHOOK_RETRY: WebhookRetryPolicy = { maxAttempts: WEBHOOK_MAX_ATTEMPTS, firstRetryMs: WEBHOOK_FIRST_RETRY_MS };

/** A single attempt, nothing retried: a test delivery, whose outcome the operator waits for. */
export const WEBHOOK_SINGLE_ATTEMPT: WebhookRetryPolicy = { maxAttempts: 1, firstRetryMs: 0 };

/**
 * POSTs one event to one webhook until it is accepted (2xx), refused for good (a 4xx other than 408/429), the
 * attempts run out, or the webhook is removed, waiting `firstRetryMs · 2^n` (`backoffDelay`) between attempts. Every
 * attempt is logged with its status or error and when the next is due; `onTurnedFailing` hears of a failed attempt
 * whose webhook's previous one had not failed (so a receiver that stays down is told of once). `stop` ends it between
 * attempts. Resolves with the last attempt logged (undefined when none was made); never throws.
 */
export async function deliverWebhook(
  webhooks: Webhooks,
  webhook: Webhook,
  delivery: { event: string; proposalId: string; body: unknown },
  policy: WebhookRetryPolicy,
  now: () => number,
  stop: AbortSignal,
  onTurnedFailing?: (webhook: Webhook, attempt: WebhookDelivery) => void,
): Promise<WebhookDelivery | undefined> {
  const body = JSON.stringify(delivery.body);
  let logged: WebhookDelivery | undefined;
  for (let attempt = 1; attempt <= policy.maxAttempts; attempt++) {
    if (stop.aborted || !webhooks.get(webhook.id)) return logged; // shutting down, or removed meanwhile
    const { status, error } = await postOutgoing(webhook.url, { headers: WEBHOOK_HEADERS, body }, WEBHOOK_TIMEOUT_MS);
    const retry = status === undefined || status >= 500 || RETRIED_CLIENT_ERRORS.has(status);
    const delayMs = backoffDelay(attempt - 1, { minDelayMs: policy.firstRetryMs, maxDelayMs: Infinity, exponent: WEBHOOK_RETRY_EXPONENT, jitterRatio: 0 });
    const last = !retry || attempt === policy.maxAttempts;
    const previous = webhooks.latest(webhook.id);
    logged = webhooks.log({
      webhook_id: webhook.id,
      event: delivery.event,
      proposal_id: delivery.proposalId,
      attempt,
      status: status ?? null,
      error: error ?? null,
      at: new Date(now()).toISOString(),
      next_retry_at: last ? null : new Date(now() + delayMs).toISOString(),
    });
    if (!deliverySucceeded(logged) && (previous === null || deliverySucceeded(previous))) onTurnedFailing?.(webhook, logged);
    if (last) return logged;
    const stopped = await sleep(delayMs, false, { signal: stop }).catch(() => true);
    if (stopped) return logged;
  }
  return logged;
}
