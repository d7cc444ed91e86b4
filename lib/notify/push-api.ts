import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Gateway } from '../gateway/gateway';
import { GatewayError } from '../gateway/gateway-error';
import type { HttpRoute } from '../gateway/http-api';
import { requireCaller } from '../gateway/http-caller';
import { readJsonBody, sendJson } from '../gateway/http-util';
import type { ListedPushSubscription, PushFailure, PushSubscriptionList } from '../protocol';
import { invalidInput } from './notify-error';
import { pushSubscriptionSchema, type PushSubscriptions, type StoredPushSubscription } from './push-subscriptions';
import { allowMethods, spaceOfPath } from './route-helpers';

const PUBLIC_KEY_PATH = '/api/push/public-key';
const SUBSCRIPTIONS_PATH = /^\/api\/spaces\/([^/]+)\/push\/subscriptions$/;
/** Largest subscription body read (a browser's is well under 1 KiB). */
const MAX_SUBSCRIPTION_BYTES = 8 * 1024;

/** What the caller sees of its subscriptions: the endpoint identifies the device; the keys stay on the server. */
const shown = ({ endpoint, created_at }: StoredPushSubscription) => ({ endpoint, created_at });
const deleteSchema = pushSubscriptionSchema.pick({ endpoint: true });

/**
 * Web Push: `GET /api/push/public-key` → `{publicKey}` (the VAPID key a browser subscribes with), and a participant's
 * own subscriptions in a space, by its own token: `POST /api/spaces/{space}/push/subscriptions` with the browser's
 * PushSubscription JSON, `DELETE` with `{endpoint}`, `GET` lists them, each with whether its pushes are failing
 * (`failureOf`), so the device can say so.
 */
export function createPushRoute(
  gateway: Gateway,
  subscriptions: PushSubscriptions,
  publicKey: string,
  now: () => number,
  failureOf: (endpoint: string) => PushFailure | null = () => null,
): HttpRoute {
  return async function handlePush(req: IncomingMessage, res: ServerResponse, url: URL): Promise<boolean> {
    if (url.pathname === PUBLIC_KEY_PATH) {
      allowMethods(req, res, ['GET']);
      sendJson(res, 200, { publicKey });
      return true;
    }
    const match = SUBSCRIPTIONS_PATH.exec(url.pathname);
    if (!match) return false;
    const space = spaceOfPath(gateway, match[1]);
    allowMethods(req, res, ['GET', 'POST', 'DELETE']);
    const participant = requireCaller(gateway, space, req).participant;
    if (!participant) throw new GatewayError('invalid_token', 'push subscriptions belong to a participant: use its own token');
    if (req.method === 'GET') {
      const list: PushSubscriptionList = {
        subscriptions: subscriptions.of(space.id, participant.id).map((s): ListedPushSubscription => ({ ...shown(s), failing: failureOf(s.endpoint) })),
      };
      sendJson(res, 200, list);
      return true;
    }
    const body = await readJsonBody(req, MAX_SUBSCRIPTION_BYTES);
    if (req.method === 'POST') {
      const parsed = pushSubscriptionSchema.safeParse(body);
      if (!parsed.success) throw invalidInput('invalid_subscription', 'push subscription', parsed.error.issues);
      sendJson(res, 201, { subscription: shown(subscriptions.save(space.id, participant.id, parsed.data, new Date(now()))) });
      return true;
    }
    const parsed = deleteSchema.safeParse(body);
    if (!parsed.success) throw invalidInput('invalid_subscription', 'push subscription', parsed.error.issues);
    if (!subscriptions.remove(space.id, participant.id, parsed.data.endpoint)) {
      throw new GatewayError('unknown_subscription', 'you have no subscription with this endpoint in this space');
    }
    sendJson(res, 200, { deleted: parsed.data.endpoint });
    return true;
  };
}
