import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { joinAs, spaceConfig, startTestGateway, tokenOf, type Frame, type TestClient, type TestGateway } from '../gateway/testing';
import type { MEWParticipant } from './mew-participant';
import { participantFactory, recordEvents } from './testing';

const config = spaceConfig('disco', {
  seeker: [{ kind: 'mcp/request' }, { kind: 'chat' }],
  calc: [{ kind: 'mcp/response' }],
  empty: [{ kind: 'mcp/response' }],
  mute: [{ kind: 'chat' }],
  raw: [{ kind: 'mcp/response' }],
  proposer: [{ kind: 'mcp/proposal' }],
});

const QUICK = { timeoutMs: 150, retryBaseDelayMs: 50, staggerMs: 10 };
/** Auto-discovery is opt-in (spec "Tool Discovery and State Management"). */
const AUTO = { autoDiscovery: true };

describe('MEWParticipant tool discovery', () => {
  let gw: TestGateway;
  const participants = participantFactory('disco', () => gw.wsUrl(), tokenOf);

  async function connectCalc(): Promise<MEWParticipant> {
    const calc = participants.create('calc', { autoDiscovery: false });
    calc.tools.register({ name: 'add', description: 'Adds', security: { risk_level: 'safe' }, execute: () => 0 });
    await calc.connect();
    return calc;
  }

  /** A raw participant that answers tools/list with `answer(request, n)` (the nth request, from 1), or not at all. */
  async function rawResponder(answer: (request: Frame, n: number) => Record<string, unknown> | undefined): Promise<{ client: TestClient; requests: Frame[] }> {
    const client = await joinAs(gw, tokenOf('raw'), 'space=disco');
    const requests: Frame[] = [];
    client.ws.on('message', (data) => {
      const frame = JSON.parse(data.toString());
      if (frame.kind !== 'mcp/request' || frame.payload.method !== 'tools/list') return;
      requests.push(frame);
      const payload = answer(frame, requests.length);
      if (payload)
        client.send({ kind: 'mcp/response', to: [frame.from], correlation_id: [frame.id], payload: { jsonrpc: '2.0', id: frame.payload.id, ...payload } });
    });
    return { client, requests };
  }

  beforeEach(async () => {
    gw = await startTestGateway(config);
  });
  afterEach(async () => {
    vi.useRealTimers();
    participants.disconnectAll();
    await gw.close();
  });

  it('discovers, on welcome, the participants that can answer, and tells tools from no tools', async () => {
    await connectCalc();
    await participants.connect('empty', { autoDiscovery: false });
    await participants.connect('mute');
    const seeker = await participants.connect('seeker', AUTO);
    expect(seeker.discovery.inProgress()).toBe(true);
    expect(await seeker.discovery.waitForPending(3000)).toBe(true);
    const status = seeker.discovery.status();
    expect(status.get('calc')).toMatchObject({ state: 'completed', attempts: 1 });
    expect(status.get('empty')).toMatchObject({ state: 'no_tools', attempts: 1, tools: [] });
    expect(status.has('mute')).toBe(false); // it cannot answer MCP, so it is not asked
    expect(seeker.discovery.available()).toEqual([
      { participantId: 'calc', name: 'add', description: 'Adds', inputSchema: { type: 'object' }, security: { risk_level: 'safe', source: 'security' } },
    ]);
  });

  it('discovers a participant that joins later, and forgets its tools when it leaves', async () => {
    const seeker = await participants.connect('seeker', AUTO);
    const calc = await connectCalc();
    await vi.waitFor(() => expect(seeker.discovery.status().get('calc')?.state).toBe('completed'));
    expect(seeker.discovery.available().map((t) => t.name)).toEqual(['add']);
    calc.disconnect();
    await vi.waitFor(() => expect(seeker.discovery.available()).toEqual([]));
    expect(seeker.discovery.status().has('calc')).toBe(false);
  });

  it('retries a discovery that timed out, with backoff, and completes when an answer comes', async () => {
    const raw = await rawResponder((_request, n) => (n === 1 ? undefined : { result: { tools: [{ name: 'late_tool' }] } }));
    const seeker = await participants.connect('seeker', { ...AUTO, discovery: QUICK });
    expect(await seeker.discovery.waitForPending(3000)).toBe(true);
    expect(seeker.discovery.status().get('raw')).toMatchObject({ state: 'completed', attempts: 2 });
    expect(raw.requests).toHaveLength(2);
    const gap = Date.parse(raw.requests[1].ts) - Date.parse(raw.requests[0].ts);
    expect(gap).toBeGreaterThanOrEqual(QUICK.timeoutMs + QUICK.retryBaseDelayMs - 20);
  });

  it('marks a participant failed after the last attempt, having really sent each one', async () => {
    const raw = await rawResponder(() => undefined);
    const seeker = await participants.connect('seeker', { ...AUTO, discovery: { ...QUICK, maxAttempts: 3 } });
    expect(await seeker.discovery.waitForPending(3000)).toBe(true);
    expect(seeker.discovery.status().get('raw')).toMatchObject({ state: 'failed', attempts: 3, error: expect.stringMatching(/timed out/) });
    expect(raw.requests).toHaveLength(3);
  });

  it('takes "method not found" as no tools, without retrying', async () => {
    const raw = await rawResponder(() => ({ error: { code: -32601, message: 'method not found' } }));
    const seeker = await participants.connect('seeker', { ...AUTO, discovery: QUICK });
    expect(await seeker.discovery.waitForPending(3000)).toBe(true);
    expect(seeker.discovery.status().get('raw')).toMatchObject({ state: 'no_tools', attempts: 1 });
    expect(raw.requests).toHaveLength(1);
  });

  it('does not discover on its own unless asked to (auto-discovery is opt-in)', async () => {
    const calc = await connectCalc();
    const asked = recordEvents(calc.client, 'mcp/request');
    vi.useFakeTimers({ shouldAdvanceTime: true, toFake: ['setTimeout', 'clearTimeout'] });
    const seeker = await participants.connect('seeker', { discovery: QUICK });
    await vi.advanceTimersByTimeAsync(QUICK.staggerMs * 100); // past any discovery it could have scheduled
    expect(seeker.discovery.status().size).toBe(0);
    expect(asked).toEqual([]);
  });

  it('does not discover when I may not send tools/list (no proposals for discovery)', async () => {
    const calc = await connectCalc();
    const asked: string[] = [];
    calc.client.on('message', (e) => (e.kind === 'mcp/request' || e.kind === 'mcp/proposal') && asked.push(e.kind));
    vi.useFakeTimers({ shouldAdvanceTime: true, toFake: ['setTimeout', 'clearTimeout'] });
    const proposer = await participants.connect('proposer', AUTO);
    await vi.advanceTimersByTimeAsync(QUICK.staggerMs * 100); // past any discovery it could have scheduled
    expect(proposer.discovery.status().size).toBe(0);
    expect(asked).toEqual([]);
  });

  it('serves cached tools until the TTL, then refreshes them in the background', async () => {
    const calc = await connectCalc();
    const seeker = await participants.connect('seeker', { ...AUTO, discovery: { ...QUICK, ttlMs: 150 } });
    await seeker.discovery.waitForPending(3000);
    calc.tools.register({ name: 'multiply', execute: () => 0 });
    expect(seeker.discovery.available().map((t) => t.name)).toEqual(['add']); // fresh: from the cache
    expect(seeker.discovery.inProgress()).toBe(false);
    vi.useFakeTimers({ toFake: ['Date'], shouldAdvanceTime: true });
    vi.setSystemTime(Date.now() + 200); // past the TTL
    expect(seeker.discovery.available().map((t) => t.name)).toEqual(['add']); // stale: still served...
    expect(seeker.discovery.inProgress()).toBe(true); // ...while a refresh runs
    await seeker.discovery.waitForPending(3000);
    expect(seeker.discovery.available().map((t) => t.name)).toEqual(['add', 'multiply']);
  });

  it('discoverTools fetches now, bypassing the cache', async () => {
    const calc = await connectCalc();
    const seeker = await participants.connect('seeker', AUTO);
    await seeker.discovery.waitForPending(3000);
    calc.tools.register({ name: 'multiply', execute: () => 0 });
    expect((await seeker.discovery.discover('calc')).map((t) => t.name)).toEqual(['add', 'multiply']);
  });
});
