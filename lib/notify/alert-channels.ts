import { covers } from '../capabilities';
import { BoundedMap } from '../collections/bounded-map';
import type { Space } from '../gateway/space';
import { maskedUrl, type PushFailure, type SystemSecurityEventPayload, type WebhookDelivery } from '../protocol';
import type { StoredPushSubscription } from './push-subscriptions';
import type { Webhook } from './webhooks';

/** Devices whose failing pushes are remembered (the oldest forgotten first). */
const PUSH_FAILURES_CAP = 10_000;

/**
 * The health of a space's alert channels, for those who rely on them: which devices' pushes are failing (kept in
 * memory: a failure is news; a webhook's history is its delivery log), and a `system/security-event` to the space's
 * operators when a webhook or a device turns failing — once when it turns, never per retry, so a receiver that stays
 * down is not a flood. Operators are who the gateway tells of refusals (`Space.tellOperators`): online participants
 * who may grant any capability.
 */
export class AlertChannels {
  private readonly pushFailures = new BoundedMap<string, PushFailure>(PUSH_FAILURES_CAP);

  constructor(
    private readonly space: Space,
    private readonly now: () => number,
  ) {}

  /** A push to `subscription` failed (and the subscription is kept). */
  pushFailed(subscription: StoredPushSubscription, error: string): void {
    const previous = this.pushFailures.get(subscription.endpoint);
    this.pushFailures.delete(subscription.endpoint); // the newest failure counts as the newest entry
    this.pushFailures.set(subscription.endpoint, { error, failures: (previous?.failures ?? 0) + 1, at: new Date(this.now()).toISOString() });
    if (!previous) this.tellOperators(`push to a device of ${subscription.participant}`, 'push_failing', `pushes to this device fail: ${error}`);
  }

  /** A push to `endpoint` went through, or the subscription is gone: nothing is failing there any more. */
  pushSettled(endpoint: string): void {
    this.pushFailures.delete(endpoint);
  }

  /** Null while the device's pushes go through. */
  pushFailure(endpoint: string): PushFailure | null {
    return this.pushFailures.get(endpoint) ?? null;
  }

  /** `deliverWebhook`'s `onTurnedFailing`. */
  readonly webhookTurnedFailing = (webhook: Webhook, attempt: WebhookDelivery): void => {
    const outcome = attempt.status !== null ? `HTTP ${attempt.status}` : (attempt.error ?? 'no answer');
    const retry = attempt.next_retry_at ? ', retrying' : '';
    this.tellOperators(`webhook ${maskedUrl(webhook.url)}`, 'webhook_failing', `delivery of ${attempt.event} failed: ${outcome}${retry}`);
  };

  private tellOperators(offender: string, error: string, message: string): void {
    const operators = [...this.space.participants.values()].filter((p) => p.online && covers(p.capabilities, { kind: 'capability/grant' })).map((p) => p.id);
    const payload: SystemSecurityEventPayload = { offender, error, message };
    if (operators.length > 0) this.space.emit('system/security-event', payload, { to: operators });
  }
}
