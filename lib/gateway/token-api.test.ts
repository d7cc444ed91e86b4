import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { IssuedParticipantToken } from '../protocol';
import { joinAs, gatewaysOn, spaceConfig, tokenOf, type TestGateway } from './testing';

const ADMIN = 'admin-token-0123456789';
/** `lead` is an operator (unrestricted capability/grant); `helper` may grant chat only; `coder` is an MCP client. */
const config = spaceConfig(
  'tok',
  {
    lead: [{ kind: '*' }],
    helper: [{ kind: 'capability/grant', payload: { capabilities: [{ kind: 'chat' }] } }, { kind: 'chat' }],
    coder: [{ kind: 'chat' }],
  },
  { admin: { tokens: [ADMIN] } },
);

describe('POST /api/spaces/{space}/participants/{id}/tokens', () => {
  const { start, stop, closeAll } = gatewaysOn(config);
  afterEach(closeAll);
  const issue = (gw: TestGateway, participant: string, token: string, body?: unknown) =>
    fetch(gw.httpUrl(`/api/spaces/tok/participants/${participant}/tokens`), {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });

  it('issues an operator one more token for a participant, shown once, audited, beside the tokens it has', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'mew-tokens-'));
    const gw = await start(dataDir);
    const res = await issue(gw, 'coder', tokenOf('lead'), { label: 'Claude Code' });
    expect(res.status).toBe(201);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const issued = (await res.json()) as IssuedParticipantToken;
    expect(issued).toEqual({
      participant: 'coder',
      token: expect.any(String),
      token_id: expect.any(String),
      label: 'Claude Code',
      issued_at: expect.any(String),
    });
    expect(issued.token.length).toBeGreaterThanOrEqual(43);

    const viaIssued = await joinAs(gw, issued.token, 'space=tok');
    expect(viaIssued.welcome!.payload.you.id).toBe('coder');
    const viaConfig = await joinAs(gw, tokenOf('coder'), 'space=tok');
    expect(viaConfig.welcome!.payload.you.id).toBe('coder');
    viaIssued.close();
    viaConfig.close();

    const audit = await (await fetch(gw.httpUrl('/api/spaces/tok/audit?type=TOKEN_ISSUED'), { headers: { Authorization: `Bearer ${ADMIN}` } })).json();
    expect(audit.events).toMatchObject([
      { type: 'TOKEN_ISSUED', actor: 'lead', subject: 'coder', details: { token_id: issued.token_id, label: 'Claude Code' } },
    ]);
    expect(JSON.stringify(audit)).not.toContain(issued.token);

    // It survives a restart: the gateway kept its SHA-256, never the token.
    await stop(gw);
    const again = await start(dataDir);
    const rejoined = await joinAs(again, issued.token, 'space=tok');
    expect(rejoined.welcome!.payload.you.id).toBe('coder');
    rejoined.close();
  });

  it('answers the admin token, with an empty body too', async () => {
    const gw = await start();
    const res = await issue(gw, 'coder', ADMIN);
    expect(res.status).toBe(201);
    expect(await res.json()).not.toHaveProperty('label');
  });

  it('refuses anyone but an operator, an unknown participant, a bad body and other methods', async () => {
    const gw = await start();
    expect((await issue(gw, 'coder', tokenOf('helper'))).status).toBe(401);
    expect((await issue(gw, 'coder', tokenOf('coder'))).status).toBe(401);
    expect((await issue(gw, 'coder', 'nobody-token-0123456789')).status).toBe(401);
    expect((await issue(gw, 'ghost', tokenOf('lead'))).status).toBe(404);
    const bad = await issue(gw, 'coder', tokenOf('lead'), { label: 'x', token: 'mine' });
    expect(bad.status).toBe(400);
    expect((await bad.json()).error).toBe('invalid_request');
    const get = await fetch(gw.httpUrl('/api/spaces/tok/participants/coder/tokens'), { headers: { Authorization: `Bearer ${tokenOf('lead')}` } });
    expect(get.status).toBe(405);
    expect((await issue(gw, 'coder', tokenOf('lead'))).status).toBe(201);
  });

  it('is revoked by a kick, with the participant’s other tokens, and not issued to a kicked participant', async () => {
    const gw = await start();
    const issued = (await (await issue(gw, 'coder', tokenOf('lead'))).json()) as IssuedParticipantToken;
    const coder = await joinAs(gw, issued.token, 'space=tok');
    const lead = await joinAs(gw, tokenOf('lead'), 'space=tok');
    lead.send({ kind: 'space/kick', payload: { participant_id: 'coder' } });
    expect((await coder.closed).code).toBe(4403);
    const refused = await fetch(gw.httpUrl('/participants/coder/messages?space=tok'), { headers: { Authorization: `Bearer ${issued.token}` } });
    expect(refused.status).toBe(401);
    expect((await issue(gw, 'coder', tokenOf('lead'))).status).toBe(404);
    lead.close();
  });
});
