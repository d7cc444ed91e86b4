/** The gateway, clients and receiver of the notification tests, started and stopped together. */
import { randomUUID } from 'node:crypto';
import { joinAs, spaceConfig, startGatewayWith, tokenOf, type TestClient, type TestGateway } from '../gateway/testing';
import type { NotifyOptions } from './notifications';
import type { RunningNotifications } from './notifications-feature';
import { startReceiver, testSubscriber, type TestReceiver, type TestSubscriber } from './testing';

/**
 * A space for notification tests: `lead` decides anything (an operator), `viewer` only chats (it cannot decide),
 * `agent` only proposes, `tools` serves tools; tokens as lib/gateway/testing's `tokenOf`.
 */
const NOTIFY_TEST_SPACE = spaceConfig('notify', {
  lead: [{ kind: '*' }],
  viewer: [{ kind: 'chat' }],
  agent: [{ kind: 'mcp/proposal' }, { kind: 'mcp/withdraw' }, { kind: 'chat' }],
  tools: [{ kind: 'mcp/response' }],
});

/** The tools `tools` declares in NOTIFY_TEST_SPACE: one safe, one dangerous. */
export const NOTIFY_TEST_TOOLS = [
  { name: 'read_note', inputSchema: { type: 'object' }, security: { risk_level: 'safe' } },
  { name: 'delete_note', inputSchema: { type: 'object' }, security: { risk_level: 'dangerous', confirmation_required: true } },
];

export interface NotifyFixture {
  gw: TestGateway;
  lead: TestClient;
  agent: TestClient;
  tools: TestClient;
  receiver: TestReceiver;
  /** `tools` answers a tools/list with these tools. */
  declareTools(tools: readonly unknown[]): Promise<void>;
  /** Subscribes a device of `participant` whose pushes arrive on `receiver` at `/push/{participant}`. */
  subscribe(participant: string): Promise<TestSubscriber>;
  /** The agent proposes `tool` on `tools` (with `id`, else a fresh one); resolves with the proposal's id. */
  propose(tool: string, args?: Record<string, unknown>, id?: string): Promise<string>;
  api(path: string, init?: { method?: string; token?: string; body?: unknown }): Promise<Response>;
  /** Resolves once everything routed so far has been handled and every send under way has finished. */
  idle(): Promise<void>;
  close(): Promise<void>;
}

export interface NotifyFixtureOptions {
  notify?: NotifyOptions;
  /** The receiver's answer to the n-th request on a path (201 by default). */
  statuses?: (path: string, n: number) => number;
  /** Persistence across restarts; a receiver to keep using. */
  dataDir?: string;
  receiver?: TestReceiver;
}

export async function startNotifyFixture(options: NotifyFixtureOptions = {}): Promise<NotifyFixture> {
  const receiver = options.receiver ?? (await startReceiver(options.statuses));
  const gw = await startGatewayWith({ configs: [NOTIFY_TEST_SPACE], notify: options.notify, dataDir: options.dataDir });
  const [lead, agent, tools] = await Promise.all(['lead', 'agent', 'tools'].map((id) => joinAs(gw, tokenOf(id))));
  // A tool's risk is known from a tools/list seen in the space, as the control room's discovery makes one.
  const declareTools: NotifyFixture['declareTools'] = async (list) => {
    const id = randomUUID();
    lead.send({ id, kind: 'mcp/request', to: ['tools'], payload: { jsonrpc: '2.0', id, method: 'tools/list' } });
    await tools.next((f) => f.id === id);
    tools.send({ kind: 'mcp/response', to: ['lead'], correlation_id: [id], payload: { jsonrpc: '2.0', id, result: { tools: list } } });
    await lead.next((f) => f.kind === 'mcp/response' && f.correlation_id?.[0] === id);
  };
  await declareTools(NOTIFY_TEST_TOOLS);
  let proposals = 0;
  const api: NotifyFixture['api'] = (path, init = {}) =>
    fetch(gw.httpUrl(path), {
      method: init.method ?? 'GET',
      headers: { ...(init.token && { Authorization: `Bearer ${init.token}` }), 'Content-Type': 'application/json' },
      ...(init.body !== undefined && { body: JSON.stringify(init.body) }),
    });
  return {
    gw,
    lead,
    agent,
    tools,
    receiver,
    declareTools,
    async subscribe(participant) {
      const subscriber = testSubscriber();
      const res = await api('/api/spaces/notify/push/subscriptions', {
        method: 'POST',
        token: tokenOf(participant),
        body: subscriber.subscription(receiver.url(`/push/${participant}`)),
      });
      if (res.status !== 201) throw new Error(`subscribe ${participant}: HTTP ${res.status} ${await res.text()}`);
      return subscriber;
    },
    async propose(tool, args = { path: 'notes/a.md' }, id = `proposal-${++proposals}`) {
      agent.send({ id, kind: 'mcp/proposal', to: ['tools'], payload: { method: 'tools/call', params: { name: tool, arguments: args } } });
      await lead.next((f) => f.id === id);
      return id;
    },
    api,
    idle: () => gw.host(NOTIFY_TEST_SPACE.space.id).feature<RunningNotifications>('notifications')!.idle(),
    async close() {
      for (const client of [lead, agent, tools]) client.close();
      await gw.close();
      if (!options.receiver) await receiver.close();
    },
  };
}
