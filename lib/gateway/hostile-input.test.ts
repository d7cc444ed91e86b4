import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { joinAs, spaceConfig, startTestGateway, tokenOf, type TestGateway } from './testing';

const SPACE = 'hostile';
/** Deep enough that serialising the message would throw (JSON.stringify recurses). */
const DEEP = 5000;
const FRAME_LIMIT = 16_384;

/** A chat whose payload nests `depth` arrays: valid JSON, and a valid envelope but for its depth. */
const deepChat = (depth: number) => `{"kind":"chat","payload":{"text":"deep","extra":${'['.repeat(depth)}${']'.repeat(depth)}}}`;

/** A raw HTTP request, so the test controls the bytes of the path and headers. */
function rawGet(gw: TestGateway, path: string, headers: Record<string, string> = {}): Promise<{ status: number; body: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port: gw.port, path, headers }, (res) => {
      let text = '';
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('hostile input', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway(
      spaceConfig(
        SPACE,
        { operator: [{ kind: '*' }], mallory: ['chat'], hog: ['chat'], flooder: ['chat'] },
        {
          limits: { max_frame_bytes: FRAME_LIMIT, max_buffered_bytes: 65_536, rate_per_second: 100_000, rate_burst: 100_000 },
        },
      ),
    );
  });
  afterAll(() => gw.close());

  it('refuses ids and addressees with a lone surrogate, so the audit chain still verifies', async () => {
    const mallory = await joinAs(gw, tokenOf('mallory'), `space=${SPACE}`);
    // A refused kind with a lone-surrogate id used to be audited with an id SQLite could not store as received.
    mallory.send({ id: '\ud800', kind: 'space/kick', payload: { participant_id: 'operator' } });
    const refused = await mallory.kind('system/error');
    expect(refused.payload).toMatchObject({ error: 'invalid_envelope', message: expect.stringContaining('well-formed Unicode') });
    mallory.send({ id: 'ok-id', kind: 'chat', to: ['\udc00'], payload: { text: 'hi' } });
    expect((await mallory.kind('system/error')).payload.error).toBe('invalid_envelope');
    // A payload may carry any JSON string: it is relayed as sent, never stored as a column.
    mallory.send({ id: 'text', kind: 'chat', payload: { text: 'half a pair: \ud800' } });
    expect((await mallory.next((f) => f.id === 'text')).payload.text).toBe('half a pair: \ud800');
    expect(gw.audit.verify(SPACE)).toEqual({ ok: true });
    mallory.close();
  });

  it('answers a deeply nested payload with invalid_envelope on the socket and 400 over HTTP, without logging a stack', async () => {
    const errors = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      const mallory = await joinAs(gw, tokenOf('mallory'), `space=${SPACE}`);
      mallory.send(deepChat(DEEP));
      const refused = await mallory.kind('system/error');
      expect(refused.payload).toMatchObject({ error: 'invalid_envelope', message: expect.stringContaining('deeper than 64 levels'), max_json_depth: 64 });
      // One level less than the limit passes (the envelope and payload take two levels).
      mallory.send({ id: 'shallow', kind: 'chat', payload: { text: 'ok', extra: JSON.parse(`${'['.repeat(62)}${']'.repeat(62)}`) } });
      await mallory.next((f) => f.id === 'shallow');
      const response = await fetch(gw.httpUrl(`/participants/mallory/messages?space=${SPACE}`), {
        method: 'POST',
        headers: { Authorization: `Bearer ${tokenOf('mallory')}`, 'Content-Type': 'application/json' },
        body: deepChat(DEEP),
      });
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({ error: 'invalid_envelope' });
      expect(errors).not.toHaveBeenCalled();
      mallory.close();
    } finally {
      errors.mockRestore();
    }
  });

  it('names the id of a frame refused for its depth, like every other refusal, read off the bytes before any parse', async () => {
    const mallory = await joinAs(gw, tokenOf('mallory'), `space=${SPACE}`);
    const deep = `${'['.repeat(DEEP)}${']'.repeat(DEEP)}`;
    const refusal = () => mallory.next((f) => f.kind === 'system/error' && f.payload.error === 'invalid_envelope');
    // The id after the deep payload, with an id nested inside the payload and escaped quotes and braces before it.
    mallory.send(`{"kind":"chat","note":"\\"id\\":\\"fake\\"}{","payload":{"id":"inner","extra":${deep}},"id":"deep-1"}`);
    const named = await refusal();
    expect(named.correlation_id).toEqual(['deep-1']);
    expect(named.payload).toMatchObject({ max_json_depth: 64 });
    // Only an id nested deeper: nothing to correlate, rather than the wrong envelope.
    mallory.send(`{"kind":"chat","payload":{"id":"inner","extra":${deep}}}`);
    expect((await refusal()).correlation_id).toBeUndefined();
    mallory.close();
  });

  it('answers bad percent-encoding with 400 and oversized headers with 431, both as JSON', async () => {
    expect(await rawGet(gw, `/participants/%E0%A4%A/messages?space=${SPACE}`)).toMatchObject({ status: 400, body: { error: 'invalid_request' } });
    expect(await rawGet(gw, '/admin/spaces/%E0%A4%A/participants')).toMatchObject({ status: 400, body: { error: 'invalid_request' } });
    expect(await rawGet(gw, '/api/spaces/%E0%A4%A/audit')).toMatchObject({ status: 400, body: { error: 'invalid_request' } });
    expect(await rawGet(gw, '/healthz', { 'x-padding': 'x'.repeat(64 * 1024) })).toMatchObject({ status: 431, body: { error: 'request_too_large' } });
    expect((await rawGet(gw, '/healthz')).status).toBe(200);
  });

  it('closes with 1009 a frame over four times the limit, as documented', async () => {
    const hog = await joinAs(gw, tokenOf('hog'), `space=${SPACE}`);
    // Megabytes, still arriving when the gateway refuses the frame from its header alone.
    hog.send(JSON.stringify({ kind: 'chat', payload: { text: 'x'.repeat(8 * 1024 * 1024) } }));
    expect((await hog.closed).code).toBe(1009);
  });

  it('closes a consumer that stops reading with 4429, and audits why it left', async () => {
    const flooder = await joinAs(gw, tokenOf('flooder'), `space=${SPACE}`);
    const slow = await joinAs(gw, tokenOf('mallory'), `space=${SPACE}`);
    const socket = (slow.ws as unknown as { _socket: { pause(): void; resume(): void } })._socket;
    socket.pause();
    // Batches until the gateway gives up on mallory: the kernel's buffers on both ends of the loopback absorb tens of
    // megabytes first (autotuned), and only then does the gateway's own allowance fill.
    const chunk = 'y'.repeat(FRAME_LIMIT - 200);
    const leave = flooder.next((f) => f.kind === 'system/presence' && f.payload.event === 'leave' && f.payload.participant.id === 'mallory', 60_000);
    let gone = false;
    void leave.then(() => (gone = true));
    for (let batch = 0; batch < 100 && !gone; batch++) {
      for (let i = 0; i < 100; i++) flooder.send({ kind: 'chat', payload: { text: chunk } });
      flooder.send({ id: `batch-${batch}`, kind: 'chat', payload: { text: 'end of batch' } });
      await flooder.next((f) => f.id === `batch-${batch}`, 10_000);
    }
    await leave;
    socket.resume();
    expect(await slow.closed).toMatchObject({ code: 4429 });
    const [left] = gw.audit.query({ space: SPACE, type: 'PARTICIPANT_LEFT', participant: 'mallory', order: 'desc', limit: 1 });
    expect(left.details).toMatchObject({ code: 4429, reason: expect.stringContaining('slow consumer') });
    flooder.close();
  });
});
