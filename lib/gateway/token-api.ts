import type { IncomingMessage, ServerResponse } from 'node:http';
import { formatIssues, issueTokenInputSchema, type IssuedParticipantToken, type IssueTokenInput } from '../protocol';
import type { Gateway } from './gateway';
import { GatewayError } from './gateway-error';
import { requireOperator } from './http-caller';
import { decodePathSegment, readBody, requireJsonContentType, sendJson } from './http-util';
import { requireParticipant } from './management';
import type { IssuedToken } from './persistence/space-records';
import type { Space } from './space';

const TOKENS_PATH = /^\/api\/spaces\/([^/]+)\/participants\/([^/]+)\/tokens$/;

/**
 * `POST /api/spaces/{space}/participants/{id}/tokens` (body `{label?}`, or none): issues the participant one more
 * token, beside those it has (its config's or minted one keeps working), e.g. for an MCP client to join as it at
 * `/mcp/{space}`. For operators (a participant holding an unrestricted `capability/grant`) and the admin token. The
 * answer (201, `IssuedParticipantToken`) is the only place the token appears: the gateway keeps its SHA-256, in the
 * same transaction as its `TOKEN_ISSUED` audit record. A kick revokes it with the participant's other tokens; a
 * kicked participant gets none until invited back.
 */
export async function handleParticipantTokens(gateway: Gateway, req: IncomingMessage, res: ServerResponse, url: URL): Promise<boolean> {
  const match = TOKENS_PATH.exec(url.pathname);
  if (!match) return false;
  if (req.method !== 'POST') {
    res.setHeader('Allow', 'POST');
    throw new GatewayError('method_not_allowed', 'use POST');
  }
  const space = gateway.spaces.get(decodePathSegment(match[1]));
  if (!space) throw new GatewayError('unknown_space', `no space "${match[1]}"`);
  const by = requireOperator(gateway, space, req, 'issuing a participant token').id;
  const participant = requireParticipant(space, decodePathSegment(match[2]), 'the path');
  if (space.state.kicked.includes(participant.id)) {
    throw new GatewayError('unknown_participant', `"${participant.id}" was kicked: invite it again to give it a token`);
  }
  const { label } = await readInput(req, space);

  let issued: { token: string; record: IssuedToken } | undefined;
  space.commit(
    (_, tokens) => {
      issued = tokens.issue(participant.id, by, label);
    },
    () => ({ type: 'TOKEN_ISSUED', actor: by, subject: participant.id, details: { token_id: issued!.record.id, ...(label !== undefined && { label }) } }),
  );
  const { token, record } = issued!;
  space.tokens.addSha256(record.sha256, participant.id);
  const body: IssuedParticipantToken = { participant: participant.id, token, token_id: record.id, ...(label !== undefined && { label }), issued_at: record.ts };
  res.setHeader('Cache-Control', 'no-store');
  sendJson(res, 201, body);
  return true;
}

/** The body: empty, or `{label?}` as JSON. */
async function readInput(req: IncomingMessage, space: Space): Promise<IssueTokenInput> {
  requireJsonContentType(req);
  const text = (await readBody(req, space.limits.maxFrameBytes)).toString('utf8').trim();
  if (text === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new GatewayError('invalid_json', `not JSON: ${(e as Error).message}`);
  }
  const parsed = issueTokenInputSchema.safeParse(value);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => ({ path: i.path.map((p) => (typeof p === 'symbol' ? String(p) : p)), message: i.message }));
    throw new GatewayError('invalid_request', `the body may only give a "label": ${formatIssues(issues)}`, { issues });
  }
  return parsed.data;
}
