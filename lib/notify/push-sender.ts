import { postOutgoing } from './outgoing-post';
import type { PushSubscriptionInput } from './push-subscriptions';

/** How long a push service may take to accept a push before the attempt is abandoned. */
export const PUSH_TIMEOUT_MS = 10_000;
/** How long a push service keeps a push for a device that is offline: a pending one is worth no more than its action links. */
export const PUSH_TTL_SECONDS = 15 * 60;
/** The VAPID contact the push services see (`MEW_PUSH_SUBJECT`); a mailto: or https: URL. */
export const DEFAULT_PUSH_SUBJECT = 'mailto:operator@mew-dashboard.invalid';
/** Push service answers that say the subscription is gone for good (RFC 8030 §7.3; 404 from some services). */
const GONE_STATUSES: ReadonlySet<number> = new Set([404, 410]);

export type PushUrgency = 'normal' | 'high';

export type PushOutcome = { ok: true; status: number } | { ok: false; gone: boolean; status?: number; error: string };

/**
 * Sends one Web Push: `web-push` encrypts the payload for the subscription (aes128gcm) and signs the VAPID header;
 * the request itself goes through `postOutgoing`, with a timeout (and so also to the plain-http loopback services tests run).
 * web-push is loaded at the first push, so a gateway nobody subscribed to never holds it.
 */
export class PushSender {
  constructor(private readonly vapid: { subject: string; publicKey: string; privateKey: string }) {}

  async send(subscription: PushSubscriptionInput, payload: unknown, urgency: PushUrgency): Promise<PushOutcome> {
    const { default: webpush } = await import('web-push');
    const request = webpush.generateRequestDetails(subscription, JSON.stringify(payload), {
      vapidDetails: this.vapid,
      TTL: PUSH_TTL_SECONDS,
      urgency,
    });
    const outcome = await postOutgoing(
      request.endpoint,
      {
        // fetch sets Content-Length from the body itself.
        headers: Object.fromEntries(
          Object.entries(request.headers)
            .filter(([name]) => name !== 'Content-Length')
            .map(([name, value]) => [name, String(value)]),
        ),
        body: new Uint8Array(request.body),
      },
      PUSH_TIMEOUT_MS,
    );
    if (outcome.status !== undefined && outcome.status < 300) return { ok: true, status: outcome.status };
    return {
      ok: false,
      gone: outcome.status !== undefined && GONE_STATUSES.has(outcome.status),
      status: outcome.status,
      error: outcome.error ?? `HTTP ${outcome.status}`,
    };
  }
}
