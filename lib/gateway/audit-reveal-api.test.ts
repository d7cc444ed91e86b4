import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { joinAs, spaceConfig, startGatewayWith, tokenOf, type TestClient, type TestGateway } from './testing';

// An operator's reveal of a masked secret in the control room is audited before the browser shows it: who revealed
// which envelope (its sender and kind), never the secret; nobody else may write such a record.

const SECRET = 'sk-proj-abcdefghijklmnopqrstuvwxyz0123456789';
const config = spaceConfig('rev', { lead: [{ kind: '*' }], agent: [{ kind: 'chat' }] });

describe('revealing a masked secret', () => {
  let gw: TestGateway;
  let agent: TestClient;
  beforeEach(async () => {
    gw = await startGatewayWith({ configs: [config], dataDir: mkdtempSync(join(tmpdir(), 'mew-reveal-')) });
    agent = await joinAs(gw, tokenOf('agent'), 'space=rev');
  });
  afterEach(() => gw.close());

  const reveal = (body: unknown, token = tokenOf('lead'), method = 'POST') =>
    fetch(gw.httpUrl('/api/spaces/rev/audit/reveal'), {
      method,
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      ...(method === 'POST' && { body: JSON.stringify(body) }),
    });
  const revealed = () => gw.audit.query({ space: 'rev', type: ['SECRET_REVEALED'] });

  it('records who revealed which envelope, its sender and kind, and never the secret', async () => {
    agent.send({ id: 'leak-1', kind: 'chat', payload: { text: `my key is ${SECRET}` } });
    await agent.next((frame) => frame.id === 'leak-1');

    const answer = await reveal({ envelope_id: 'leak-1' });
    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual({ envelope_id: 'leak-1', subject: 'agent' });
    // Written before the answer: the browser unmasks only what the log already names.
    const [event] = revealed();
    expect(event).toMatchObject({ actor: 'lead', subject: 'agent', envelope_id: 'leak-1', details: { kind: 'chat', in_history: true } });
    expect(JSON.stringify(event)).not.toContain(SECRET.slice(8));

    // An envelope the retained history no longer holds is still recorded: the browser may have it.
    expect((await reveal({ envelope_id: 'long-gone' })).status).toBe(200);
    expect(revealed().at(-1)).toMatchObject({ actor: 'lead', envelope_id: 'long-gone', details: { in_history: false } });
    expect(revealed().at(-1)?.subject).toBeUndefined();
  });

  it('is for operators only, POST only, and needs an envelope id', async () => {
    expect((await reveal({ envelope_id: 'x' }, tokenOf('agent'))).status).toBe(401);
    expect((await reveal({ envelope_id: 'x' }, 'nobody')).status).toBe(401);
    expect((await reveal(undefined, tokenOf('lead'), 'GET')).status).toBe(405);
    for (const body of [{}, { envelope_id: '' }, { envelope_id: 7 }, { envelope_id: 'x'.repeat(300) }, null]) {
      const refused = await reveal(body);
      expect(refused.status).toBe(400);
      expect((await refused.json()).error).toBe('invalid_request');
    }
    expect(revealed()).toEqual([]);
    // The audit log's own routes are untouched.
    const page = await fetch(gw.httpUrl('/api/spaces/rev/audit'), { headers: { Authorization: `Bearer ${tokenOf('lead')}` } });
    expect(page.status).toBe(200);
  });
});
