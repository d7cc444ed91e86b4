import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { joinAs, spaceConfig, startTestGateway, tokenOf, type TestGateway } from './testing';

const config = spaceConfig('http', { alice: [{ kind: 'chat' }], bob: [{ kind: 'chat' }] }, { limits: { max_frame_bytes: 2048 } });

describe('gateway HTTP API', () => {
  let gw: TestGateway;
  beforeEach(async () => {
    gw = await startTestGateway(config);
  });
  afterEach(() => gw.close());

  function post(id: string, body: string, headers: Record<string, string> = {}) {
    return fetch(gw.httpUrl(`/participants/${id}/messages?space=http`), {
      method: 'POST',
      headers: { Authorization: `Bearer ${tokenOf(id)}`, 'Content-Type': 'application/json', ...headers },
      body,
    });
  }

  it.each(['/healthz', '/health'])('reports health on %s with each space and its connection count', async (path) => {
    await joinAs(gw, tokenOf('alice'), 'space=http');
    const res = await fetch(gw.httpUrl(path));
    expect(res.status).toBe(200);
    // alice, bob and the rule supervisor the gateway adds (the config names none).
    expect(await res.json()).toMatchObject({ status: 'ok', spaces: [{ id: 'http', participants: 3, connected: 1 }] });
  });

  it('injects an envelope through the same pipeline and routes it to connected participants', async () => {
    const bob = await joinAs(gw, tokenOf('bob'), 'space=http');
    const res = await post('alice', JSON.stringify({ kind: 'chat', payload: { text: 'over http' } }));
    expect(res.status).toBe(202);
    const body = await res.json();
    expect(body).toMatchObject({ status: 'accepted' });
    const seen = await bob.kind('chat');
    expect(seen).toMatchObject({ id: body.id, from: 'alice', ts: body.timestamp, payload: { text: 'over http' } });
  });

  it.each([
    ['a non-JSON body', '{oops', {}, 400, 'invalid_json'],
    ['an invalid envelope', JSON.stringify({ kind: 'chat', payload: {} }), {}, 400, 'invalid_envelope'],
    ['a kind without capability', JSON.stringify({ kind: 'mcp/request', payload: { method: 'tools/list' } }), {}, 403, 'capability_violation'],
    ['a reserved kind', JSON.stringify({ kind: 'system/error', payload: { error: 'x' } }), {}, 403, 'reserved_kind'],
    ['a spoofed from', JSON.stringify({ from: 'bob', kind: 'chat', payload: { text: 'x' } }), {}, 403, 'identity_mismatch'],
    ['an oversized body', JSON.stringify({ kind: 'chat', payload: { text: 'x'.repeat(4000) } }), {}, 413, 'message_too_large'],
    ['a non-JSON content type', 'text', { 'Content-Type': 'text/plain' }, 415, 'unsupported_media_type'],
  ])('refuses %s with a JSON error body', async (_name, body, headers, status, code) => {
    const res = await post('alice', body, headers);
    expect(res.status).toBe(status);
    expect(res.headers.get('content-type')).toMatch(/application\/json/);
    expect((await res.json()).error).toBe(code);
  });

  it('audits a refused post exactly like the same envelope refused on the socket', async () => {
    const alice = await joinAs(gw, tokenOf('alice'), 'space=http');
    const forbidden = { kind: 'mcp/request', payload: { method: 'tools/call', params: { name: 'rm' } } };
    expect((await post('alice', JSON.stringify({ id: 'over-http', ...forbidden }))).status).toBe(403);
    alice.send({ id: 'over-ws', ...forbidden });
    await alice.kind('system/error');
    gw.audit.flush();
    const blocked = gw.audit.query({ space: 'http', type: 'TOOL_BLOCKED' });
    expect(blocked.map((e) => [e.actor, e.envelope_id, e.details.error])).toEqual([
      ['alice', 'over-http', 'capability_violation'],
      ['alice', 'over-ws', 'capability_violation'],
    ]);
    expect(alice.received.filter((f) => f.kind === 'system/error')).toEqual([]); // the HTTP caller got its answer in the response
  });

  it('refuses a missing or wrong token with 401 and another participant’s path with 403', async () => {
    const missing = await fetch(gw.httpUrl('/participants/alice/messages?space=http'), { method: 'POST', body: '{}' });
    expect(missing.status).toBe(401);
    expect((await missing.json()).error).toBe('invalid_token');
    const wrong = await post('alice', '{}', { Authorization: 'Bearer not-a-token-00000000' });
    expect(wrong.status).toBe(401);
    const other = await fetch(gw.httpUrl('/participants/bob/messages?space=http'), {
      method: 'POST',
      headers: { Authorization: `Bearer ${tokenOf('alice')}` },
      body: JSON.stringify({ kind: 'chat', payload: { text: 'as bob' } }),
    });
    expect(other.status).toBe(403);
    expect((await other.json()).error).toBe('identity_mismatch');
  });

  it('serves history since a timestamp, without other participants’ targeted gateway envelopes', async () => {
    const bob = await joinAs(gw, tokenOf('bob'), 'space=http');
    const before = new Date().toISOString();
    await post('alice', JSON.stringify({ kind: 'chat', payload: { text: 'one' } }));
    bob.send('not json'); // an error addressed to bob alone
    await bob.kind('system/error');
    const res = await fetch(gw.httpUrl(`/participants/alice/messages?space=http&since=${encodeURIComponent(before)}`), {
      headers: { Authorization: `Bearer ${tokenOf('alice')}` },
    });
    expect(res.status).toBe(200);
    const { messages } = await res.json();
    expect(messages.map((m: { kind: string }) => m.kind)).toEqual(['chat']);
    const all = await (await fetch(gw.httpUrl('/participants/bob/messages?space=http'), { headers: { Authorization: `Bearer ${tokenOf('bob')}` } })).json();
    expect(all.messages.map((m: { kind: string }) => m.kind)).toEqual(expect.arrayContaining(['system/welcome', 'chat', 'system/error']));
  });

  it('rejects a bad since, an unknown space and unsupported methods with JSON', async () => {
    const auth = { Authorization: `Bearer ${tokenOf('alice')}` };
    expect((await fetch(gw.httpUrl('/participants/alice/messages?since=yesterday'), { headers: auth })).status).toBe(400);
    const unknown = await fetch(gw.httpUrl('/participants/alice/messages?space=nope'), { headers: auth });
    expect([unknown.status, (await unknown.json()).error]).toEqual([404, 'unknown_space']);
    const del = await fetch(gw.httpUrl('/participants/alice/messages'), { method: 'DELETE', headers: auth });
    expect([del.status, (await del.json()).error]).toEqual([405, 'method_not_allowed']);
    const other = await fetch(gw.httpUrl('/nothing-here'));
    expect([other.status, (await other.json()).error]).toEqual([404, 'not_found']);
  });
});
