import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { joinAs, spaceConfig, startTestGateway, tokenOf, type TestClient, type TestGateway } from './testing';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const config = spaceConfig(
  'pipeline',
  {
    alice: [{ kind: 'chat' }, { kind: 'mcp/proposal' }, { kind: 'mcp/request', payload: { method: 'tools/call', params: { name: 'read_*' } } }],
    bob: [{ kind: 'chat' }, { kind: 'mcp/response' }],
    carol: ['chat'],
  },
  { limits: { max_frame_bytes: 4096, rate_per_second: 5, rate_burst: 5 } },
);

describe('gateway pipeline', () => {
  let gw: TestGateway;
  let alice: TestClient;
  let bob: TestClient;
  beforeEach(async () => {
    gw = await startTestGateway(config);
    alice = await joinAs(gw, tokenOf('alice'), 'space=pipeline');
    bob = await joinAs(gw, tokenOf('bob'), 'space=pipeline');
    await alice.next((f) => f.kind === 'system/presence' && f.payload.participant.id === 'bob');
  });
  afterEach(() => gw.close());

  /** After a refusal the sender's connection still works and bob saw nothing of the refused frame. */
  async function expectStillServing() {
    alice.send({ kind: 'chat', payload: { text: 'after' } });
    expect((await bob.kind('chat')).payload.text).toBe('after');
  }

  it('routes an envelope to everyone including the sender and fills the fields the sender left out', async () => {
    alice.send({ kind: 'chat', payload: { text: 'hi' } });
    const [echo, seen] = await Promise.all([alice.kind('chat'), bob.kind('chat')]);
    expect(seen).toEqual(echo);
    expect(seen).toMatchObject({ protocol: 'mew/v0.4', from: 'alice', kind: 'chat', payload: { text: 'hi' } });
    expect(seen.id).toMatch(UUID);
    expect(Date.parse(seen.ts)).not.toBeNaN();
  });

  it('keeps the ids, correlation and context the sender gave and forwards unknown payload fields', async () => {
    alice.send({
      protocol: 'mew/v0.4',
      id: 'env-1',
      from: 'alice',
      to: ['bob'],
      kind: 'chat',
      context: 'a/b',
      correlation_id: ['x'],
      payload: { text: 'hi', extra: { deep: [1, 2] } },
    });
    expect(await bob.kind('chat')).toMatchObject({ id: 'env-1', to: ['bob'], context: 'a/b', correlation_id: ['x'], payload: { extra: { deep: [1, 2] } } });
  });

  it('broadcasts presence leave when a participant disconnects abruptly', async () => {
    bob.ws.terminate();
    expect((await alice.next((f) => f.kind === 'system/presence' && f.payload.event === 'leave')).payload.participant.id).toBe('bob');
  });

  it('answers a non-JSON frame with invalid_json', async () => {
    alice.send('{not json');
    expect((await alice.kind('system/error')).payload.error).toBe('invalid_json');
    await expectStillServing();
  });

  it('answers a malformed envelope with invalid_envelope, the issues, and the offending id as correlation', async () => {
    alice.send({ id: 'bad-1', kind: 'chat', payload: { text: 42 } });
    const error = await alice.kind('system/error');
    expect(error).toMatchObject({ to: ['alice'], correlation_id: ['bad-1'], payload: { error: 'invalid_envelope' } });
    expect(error.payload.issues[0].path).toEqual(['payload', 'text']);
    await expectStillServing();
  });

  it('refuses unknown kinds and unknown envelope fields', async () => {
    alice.send({ id: 'u1', kind: 'chat/shout', payload: {} });
    expect((await alice.kind('system/error')).payload).toMatchObject({ error: 'invalid_envelope' });
    alice.send({ id: 'u2', kind: 'chat', payload: { text: 'x' }, sneaky: true });
    expect((await alice.kind('system/error')).payload).toMatchObject({ error: 'invalid_envelope' });
    await expectStillServing();
  });

  it('answers an oversized frame with message_too_large and keeps the connection open', async () => {
    alice.send({ id: 'big', kind: 'chat', payload: { text: 'x'.repeat(5000) } });
    expect((await alice.kind('system/error')).payload).toMatchObject({ error: 'message_too_large', limit_bytes: 4096 });
    await expectStillServing();
  });

  it('refuses a spoofed from with identity_mismatch', async () => {
    alice.send({ id: 'spoof', from: 'bob', kind: 'chat', payload: { text: 'I am bob' } });
    expect(await alice.kind('system/error')).toMatchObject({ correlation_id: ['spoof'], payload: { error: 'identity_mismatch' } });
    await expectStillServing();
  });

  it('reserves system/* for the gateway whatever the capabilities say', async () => {
    alice.send({ id: 'forge', kind: 'system/welcome', payload: { you: { id: 'alice', capabilities: [{ kind: '*' }] }, participants: [] } });
    expect((await alice.kind('system/error')).payload).toMatchObject({ error: 'reserved_kind', attempted_kind: 'system/welcome' });
    await expectStillServing();
  });

  it('refuses a kind or payload no capability matches, naming the kind and the sender’s capabilities', async () => {
    alice.send({ id: 'w1', to: ['bob'], kind: 'mcp/request', payload: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'write_file' } } });
    const error = await alice.kind('system/error');
    expect(error.payload).toMatchObject({ error: 'capability_violation', attempted_kind: 'mcp/request' });
    expect(error.payload.your_capabilities).toHaveLength(3);
    alice.send({ id: 'r1', to: ['bob'], kind: 'mcp/request', payload: { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'read_file' } } });
    expect((await bob.kind('mcp/request')).id).toBe('r1');
  });

  it('rate-limits a flooding participant with retry_after_ms while others keep being served', async () => {
    for (let i = 0; i < 8; i++) alice.send({ kind: 'chat', payload: { text: `flood ${i}` } });
    const error = await alice.kind('system/error');
    expect(error.payload.error).toBe('rate_limited');
    expect(error.payload.retry_after_ms).toBeGreaterThan(0);
    bob.send({ kind: 'chat', payload: { text: 'bob is fine' } });
    expect((await alice.next((f) => f.kind === 'chat' && f.from === 'bob')).payload.text).toBe('bob is fine');
  });

  it('delivers only addressed and broadcast envelopes to a participant in directed mode', async () => {
    const carol = await joinAs(gw, tokenOf('carol'), 'space=pipeline&routing=directed');
    alice.send({ id: 'to-bob', to: ['bob'], kind: 'chat', payload: { text: 'for bob' } });
    alice.send({ id: 'to-all', kind: 'chat', payload: { text: 'for all' } });
    alice.send({ id: 'to-carol', to: ['carol'], kind: 'chat', payload: { text: 'for carol' } });
    expect((await carol.kind('chat')).id).toBe('to-all');
    expect((await carol.kind('chat')).id).toBe('to-carol');
    expect((await bob.kind('chat')).id).toBe('to-bob'); // broadcast mode sees everything
  });

  it('delivers to a directed participant what answers it, down a chain of correlations, and nothing else addressed to others', async () => {
    const carol = await joinAs(gw, tokenOf('carol'), 'space=pipeline&routing=directed');
    // A proposal and its fulfilment, in chats: carol asks bob; bob asks alice about it; alice answers bob.
    carol.send({ id: 'ask', to: ['bob'], kind: 'chat', payload: { text: 'can you?' } });
    await bob.next((f) => f.id === 'ask');
    bob.send({ id: 'relay', to: ['alice'], correlation_id: ['ask'], kind: 'chat', payload: { text: 'may I?' } });
    alice.send({ id: 'unrelated', to: ['bob'], kind: 'chat', payload: { text: 'lunch?' } });
    alice.send({ id: 'answer', to: ['bob'], correlation_id: ['relay'], kind: 'chat', payload: { text: 'yes' } });
    await bob.next((f) => f.id === 'answer');
    const seen = async () => (await carol.next((f) => f.kind === 'chat' && f.from !== 'carol')).id;
    expect([await seen(), await seen()]).toEqual(['relay', 'answer']);
    expect(carol.received.some((f) => f.id === 'unrelated')).toBe(false);
    expect(carol.received.some((f) => f.id === 'ask')).toBe(true); // its own, though addressed to bob
  });

  it('keeps targeted gateway envelopes private: errors go to the offender alone', async () => {
    alice.send('nope');
    await alice.kind('system/error');
    await expectStillServing();
    expect(bob.received.some((f) => f.kind === 'system/error')).toBe(false);
  });
});
