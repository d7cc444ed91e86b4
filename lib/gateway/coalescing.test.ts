import { afterEach, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import { COALESCE_PARAM } from '../protocol';
import { COALESCE_MAX_MS, COALESCE_MIN_MS } from './gateway-options';
import { joinAs, spaceConfig, startTestGateway, tokenOf, type Frame, type TestClient, type TestGateway } from './testing';

const everything = [{ kind: '*' }];
const config = spaceConfig('busy', { dash: everything, agent: everything, watcher: everything }, { limits: { rate_per_second: 10_000, rate_burst: 10_000 } });
/** Longer than any test: whatever arrives before it ends was not waiting for the timer. */
const LONG_WINDOW_MS = COALESCE_MAX_MS;
const seq = (f: Frame) => Number(f.cursor.split('-')[1]);
const chatTexts = (frames: Frame[]) => frames.filter((f) => f.kind === 'chat').map((f) => f.payload.text);

/** Sends `count` chats from `client` (to no one in particular: routine for everyone else) and awaits its last echo. */
async function chats(client: TestClient, prefix: string, count: number): Promise<void> {
  for (let i = 0; i < count; i++) client.send({ kind: 'chat', payload: { text: `${prefix} ${i}` } });
  await client.next((f) => f.kind === 'chat' && f.payload.text === `${prefix} ${count - 1}`);
}

/** The chats starting with `prefix` that `client` has received, in arrival order. */
const chatsOf = (client: TestClient, prefix: string) => client.received.filter((f) => f.kind === 'chat' && String(f.payload.text).startsWith(`${prefix} `));

/** Waits until `client` has received `count` chats starting with `prefix`. */
async function receivedChats(client: TestClient, prefix: string, count: number): Promise<Frame[]> {
  await vi.waitFor(() => expect(chatsOf(client, prefix).length).toBeGreaterThanOrEqual(count), { timeout: 5000 });
  return chatsOf(client, prefix);
}

describe('coalescing connections (?coalesce=<ms>)', () => {
  const gateways: TestGateway[] = [];
  afterEach(async () => {
    for (const gw of gateways.splice(0)) await gw.close();
  });
  const start = async () => {
    const gw = await startTestGateway(config);
    gateways.push(gw);
    return gw;
  };
  /** dash coalescing with `windowMs`, watcher not; then the agent, whose presence both have seen before returning. */
  const join = async (gw: TestGateway, windowMs: number) => {
    const dash = await joinAs(gw, tokenOf('dash'), `space=busy&${COALESCE_PARAM}=${windowMs}`);
    const watcher = await joinAs(gw, tokenOf('watcher'), 'space=busy');
    const agent = await joinAs(gw, tokenOf('agent'), 'space=busy');
    return { dash, watcher, agent };
  };

  it('sends routine envelopes batched, all of them, in order, while a participant without it still gets one per frame', async () => {
    const gw = await start();
    const { dash, watcher, agent } = await join(gw, 50);
    await dash.next((f) => f.kind === 'system/presence' && f.payload.participant.id === 'agent');
    await watcher.next((f) => f.kind === 'system/presence' && f.payload.participant.id === 'agent');
    const [dashFrames, watcherFrames] = [dash.frames, watcher.frames];

    await chats(agent, 'routine', 300);
    const atDash = await receivedChats(dash, 'routine', 300);
    const atWatcher = await receivedChats(watcher, 'routine', 300);

    const expected = Array.from({ length: 300 }, (_, i) => `routine ${i}`);
    expect(chatTexts(atDash)).toEqual(expected);
    expect(chatTexts(atWatcher)).toEqual(expected);
    expect(dash.frames - dashFrames).toBeLessThan(300 / 10);
    expect(dash.batches.flat().filter((f) => f.kind === 'chat')).toHaveLength(300);
    expect(watcher.frames - watcherFrames).toBe(300);
    expect(watcher.batches).toEqual([]);
    // Each envelope in a batch is as it would have been sent alone, cursor included.
    expect(atDash.map(seq)).toEqual(atWatcher.map(seq));
  });

  it('sends an urgent envelope at once, after the routine ones held before it; a reconnect from the last cursor misses nothing', async () => {
    const gw = await start();
    const { dash, agent } = await join(gw, LONG_WINDOW_MS);
    await chats(agent, 'before', 50);
    const sentAt = Date.now();
    agent.send({ id: 'p-1', kind: 'mcp/proposal', payload: { method: 'tools/call', params: { name: 'write_note', arguments: {} } } });
    const proposal = await dash.next((f) => f.kind === 'mcp/proposal', 2000);
    expect(Date.now() - sentAt).toBeLessThan(1000);
    // The frame just before the proposal's is the batch of what was held, all of it, in order.
    const held = dash.batches.at(-1)!;
    expect(chatTexts(held)).toEqual(Array.from({ length: 50 }, (_, i) => `before ${i}`));
    expect(held.map(seq).every((s, i, all) => i === 0 || s > all[i - 1])).toBe(true);
    expect(seq(proposal)).toBeGreaterThan(seq(held.at(-1)!));

    // Routine envelopes held when the connection drops are not lost: they come back on the catch-up.
    await chats(agent, 'while held', 30);
    const lastSeen = proposal.cursor;
    expect(chatsOf(dash, 'while held')).toEqual([]);
    dash.close();
    await dash.closed;
    const again = await joinAs(gw, tokenOf('dash'), `space=busy&${COALESCE_PARAM}=${LONG_WINDOW_MS}&after=${lastSeen}`);
    expect(chatTexts(again.received)).toEqual(Array.from({ length: 30 }, (_, i) => `while held ${i}`));
    expect(again.welcome!.payload.catch_up).toEqual({ replayed: expect.any(Number), complete: true });
  });

  it('treats a routine kind addressed to the participant, and its own echo, as urgent', async () => {
    const gw = await start();
    const { dash, agent } = await join(gw, LONG_WINDOW_MS);
    agent.send({ kind: 'chat', to: ['dash'], payload: { text: 'for you' } });
    await dash.next((f) => f.payload?.text === 'for you', 1000);
    dash.send({ kind: 'chat', payload: { text: 'mine' } });
    await dash.next((f) => f.payload?.text === 'mine', 1000);
  });

  it('batches text stream frames as JSON strings', async () => {
    const gw = await start();
    const { dash, agent } = await join(gw, 20);
    agent.send({ kind: 'stream/request', to: ['gateway'], payload: { direction: 'upload' } });
    const { payload } = await agent.kind('stream/open');
    for (let i = 0; i < 20; i++) agent.send(`#${payload.stream_id}#token ${i}`);
    await dash.next((f) => f.stream === `#${payload.stream_id}#token 19`);
    const streamed = dash.batches.flat().filter((f) => 'stream' in f);
    expect(streamed.map((f) => f.stream)).toEqual(Array.from({ length: 20 }, (_, i) => `#${payload.stream_id}#token ${i}`));
  });

  it('clamps a window outside the range and refuses one that is not a number with HTTP 400 JSON', async () => {
    const gw = await start();
    for (const value of ['', '0', '-5', String(COALESCE_MIN_MS - 1), '1e9']) {
      const client = await joinAs(gw, tokenOf('dash'), `space=busy&${COALESCE_PARAM}=${value}`);
      client.close();
    }
    const refused = await new Promise<{ status?: number; body: string }>((resolve) => {
      const ws = new WebSocket(gw.wsUrl(`space=busy&${COALESCE_PARAM}=soon`), { headers: { Authorization: `Bearer ${tokenOf('dash')}` } });
      ws.on('error', () => undefined);
      ws.on('unexpected-response', (_req, res) => {
        let body = '';
        res.on('data', (chunk) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode, body }));
      });
    });
    expect(refused.status).toBe(400);
    expect(JSON.parse(refused.body)).toMatchObject({ error: 'invalid_request' });
  });
});
