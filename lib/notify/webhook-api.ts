import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  maskedUrl,
  webhookInputSchema,
  type AddedWebhook,
  type WebhookDelivery,
  type WebhookDeliveryLog,
  type WebhookList,
  type WebhookTestResult,
} from '../protocol';
import type { AuditSink } from '../gateway/audit-sink';
import type { Gateway } from '../gateway/gateway';
import { GatewayError } from '../gateway/gateway-error';
import type { HttpRoute } from '../gateway/http-api';
import { requireOperator } from '../gateway/http-caller';
import { decodePathSegment, readJsonBody, sendJson } from '../gateway/http-util';
import { invalidInput } from './notify-error';
import { allowMethods, spaceOfPath } from './route-helpers';
import type { Webhook, Webhooks } from './webhooks';

const WEBHOOKS_PATH = /^\/api\/spaces\/([^/]+)\/webhooks(?:\/([^/]+)(\/deliveries|\/test)?)?$/;
/** Largest body read when adding a webhook. */
const MAX_WEBHOOK_BYTES = 8 * 1024;

/**
 * A space's webhooks, for operators (the admin token or an unrestricted `capability/grant`, as for rules and the
 * audit log): `GET`/`POST /api/spaces/{space}/webhooks` (`{url, format: 'slack' | 'json'}`), `DELETE …/webhooks/{id}`,
 * `GET …/webhooks/{id}/deliveries` (the delivery log, newest first), `POST …/webhooks/{id}/test` (`sendTest`: one
 * clearly-marked test event through the delivery path, logged like any; 200 with that attempt, whatever the receiver
 * answered). Adding and removing are audited in the change's own transaction; the URL is shown and audited masked,
 * since its path is usually the receiver's secret.
 */
export function createWebhookRoute(
  gateway: Gateway,
  audit: AuditSink,
  webhooksOf: (space: string) => Webhooks,
  now: () => number,
  sendTest: (webhook: Webhook, by: string) => Promise<WebhookDelivery | undefined>,
): HttpRoute {
  return async function handleWebhooks(req: IncomingMessage, res: ServerResponse, url: URL): Promise<boolean> {
    const match = WEBHOOKS_PATH.exec(url.pathname);
    if (!match) return false;
    const space = spaceOfPath(gateway, match[1]);
    const [, , idSegment, sub] = match;
    allowMethods(req, res, idSegment === undefined ? ['GET', 'POST'] : sub === '/deliveries' ? ['GET'] : sub === '/test' ? ['POST'] : ['DELETE']);
    const by = requireOperator(gateway, space, req, 'the webhooks API').id;
    const webhooks = webhooksOf(space.id);
    const record = (type: 'WEBHOOK_ADDED' | 'WEBHOOK_REMOVED') => (webhook: Webhook) =>
      audit.recordNow({ space: space.id, type, actor: by, details: { webhook_id: webhook.id, url: maskedUrl(webhook.url), format: webhook.format } });
    if (idSegment === undefined && req.method === 'GET') {
      const list: WebhookList = { webhooks: webhooks.listed() };
      sendJson(res, 200, list);
      return true;
    }
    if (idSegment === undefined) {
      const parsed = webhookInputSchema.safeParse(await readJsonBody(req, MAX_WEBHOOK_BYTES));
      if (!parsed.success) throw invalidInput('invalid_webhook', 'webhook', parsed.error.issues);
      const added = webhooks.add(parsed.data, by, new Date(now()), record('WEBHOOK_ADDED'));
      const body: AddedWebhook = { webhook: webhooks.listed().find((w) => w.id === added.id)! };
      sendJson(res, 201, body);
      return true;
    }
    const id = decodePathSegment(idSegment);
    const unknown = () => new GatewayError('unknown_webhook', `no webhook "${id}" in space "${space.id}"`);
    if (sub === '/deliveries') {
      if (!webhooks.get(id)) throw unknown();
      const log: WebhookDeliveryLog = { deliveries: webhooks.deliveries(id) };
      sendJson(res, 200, log);
      return true;
    }
    if (sub === '/test') {
      const webhook = webhooks.get(id);
      if (!webhook) throw unknown();
      const delivery = await sendTest(webhook, by);
      if (!delivery) throw unknown(); // removed while it was sent
      const result: WebhookTestResult = { delivery };
      sendJson(res, 200, result);
      return true;
    }
    if (!webhooks.remove(id, record('WEBHOOK_REMOVED'))) throw unknown();
    sendJson(res, 200, { deleted: id });
    return true;
  };
}
