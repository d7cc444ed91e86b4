import type { IncomingMessage, ServerResponse } from 'node:http';
import type { SecretRevealRecorded } from '../protocol';
import type { AuditSink } from './audit-sink';
import type { Gateway } from './gateway';
import { GatewayError } from './gateway-error';
import { requireOperator } from './http-caller';
import { decodePathSegment, readJsonBody, sendJson } from './http-util';

const REVEAL_PATH = /^\/api\/spaces\/([^/]+)\/audit\/reveal$/;
/** The body is one envelope id: anything larger is not a reveal. */
const MAX_REVEAL_BODY_BYTES = 4_096;
/** Envelope ids are UUIDs or a client's own short ids; a longer one names nothing the control room shows. */
const MAX_ENVELOPE_ID_LENGTH = 256;

/**
 * `POST /api/spaces/{space}/audit/reveal` `{envelope_id}` (operators): records that the caller reveals the masked
 * secrets of one envelope in the control room (`SECRET_REVEALED`), written before the answer, so the browser — which
 * already holds the envelope and unmasks it itself — shows nothing unmasked that the audit log does not name. The
 * event says who revealed which envelope, its sender and kind (from the space's retained history, when it still
 * holds it), never the secret. Anyone else is 401, like the audit log itself.
 */
export function createSecretRevealRoute(gateway: Gateway, audit: AuditSink) {
  return async function handleSecretReveal(req: IncomingMessage, res: ServerResponse, url: URL): Promise<boolean> {
    const match = REVEAL_PATH.exec(url.pathname);
    if (!match) return false;
    const space = gateway.spaces.get(decodePathSegment(match[1]));
    if (!space) throw new GatewayError('unknown_space', `no space "${match[1]}"`);
    if (req.method !== 'POST') {
      res.setHeader('Allow', 'POST');
      throw new GatewayError('method_not_allowed', 'use POST');
    }
    const by = requireOperator(gateway, space, req, 'revealing a masked secret').id;
    const body = await readJsonBody(req, MAX_REVEAL_BODY_BYTES);
    const id = (body as { envelope_id?: unknown } | null)?.envelope_id;
    if (typeof id !== 'string' || id.length === 0 || id.length > MAX_ENVELOPE_ID_LENGTH) {
      throw new GatewayError('invalid_request', `the body must be {"envelope_id": "<the envelope's id>"} (at most ${MAX_ENVELOPE_ID_LENGTH} characters)`);
    }
    // A linear scan of the retained ring: a reveal is a person's click, not traffic.
    const envelope = space.history.toArray().find((message) => message.envelope?.id === id)?.envelope;
    audit.recordNow({
      space: space.id,
      type: 'SECRET_REVEALED',
      actor: by,
      subject: envelope?.from,
      envelope_id: id,
      details: { ...(envelope && { kind: envelope.kind }), in_history: envelope !== undefined },
    });
    sendJson(res, 200, { envelope_id: id, ...(envelope && { subject: envelope.from }) } satisfies SecretRevealRecorded);
    return true;
  };
}
