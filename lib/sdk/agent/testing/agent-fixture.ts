/**
 * MEWAgent's integration-test space: a real gateway on port 0, the scripted model server, a `files` participant
 * serving read_file, read_notes and write_file, and a `human` who chats, decides proposals and sends controls.
 * The agent may call `read_*` tools directly but must propose anything else. Node-only (the gateway).
 */
import { vi } from 'vitest';
import { spaceConfig, startGatewayWith, tokenOf, type TestGateway } from '../../../gateway/testing';
import type { Envelope } from '../../../protocol';
import type { MEWParticipant } from '../../mew-participant';
import type { SentEnvelope } from '../../mew-client';
import { nextEvent, participantFactory, TEST_BACKOFF } from '../../testing';
import type { MEWAgentOptions } from '../agent-options';
import { MEWAgent } from '../mew-agent';
import { ScriptedOpenAiServer } from './scripted-openai-server';

export const SPACE = 'agent-space';

const config = spaceConfig(SPACE, {
  agent: [
    { kind: 'chat' },
    { kind: 'chat/*' },
    { kind: 'reasoning/*' },
    { kind: 'participant/status' },
    { kind: 'participant/compact-done' },
    { kind: 'mcp/request', payload: { method: 'tools/list' } },
    { kind: 'mcp/request', payload: { method: 'tools/call', params: { name: 'read_*' } } },
    { kind: 'mcp/proposal' },
    { kind: 'mcp/withdraw' },
    { kind: 'stream/*' },
  ],
  files: [{ kind: 'mcp/response' }, { kind: 'chat' }],
  human: [{ kind: 'chat' }, { kind: 'chat/*' }, { kind: 'mcp/request' }, { kind: 'mcp/reject' }, { kind: 'reasoning/cancel' }, { kind: 'participant/*' }],
  bystander: [{ kind: 'chat' }],
});

export interface AgentFixture {
  gw: TestGateway;
  model: ScriptedOpenAiServer;
  files: MEWParticipant;
  human: MEWParticipant;
  /** What `write_file` wrote, by path. */
  written: Map<string, string>;
  /** Connects the agent and waits until it has discovered the files' tools. */
  startAgent(options?: Partial<MEWAgentOptions>): Promise<MEWAgent>;
  /** The human asks (to the agent, unless `to` says otherwise); `answer` is the agent's chat correlated to it. */
  ask(text: string, to?: string[]): { question: SentEnvelope; answer: Promise<Envelope<'chat'>> };
  close(): Promise<void>;
}

/** `gateway`: more of the gateway's options (its telemetry, say). */
export async function startAgentFixture(gateway: Omit<Parameters<typeof startGatewayWith>[0], 'configs'> = {}): Promise<AgentFixture> {
  const gw = await startGatewayWith({ ...gateway, configs: [config] });
  const model = await ScriptedOpenAiServer.start();
  const participants = participantFactory(SPACE, () => gw.wsUrl(), tokenOf);
  const written = new Map<string, string>();
  const files = await participants.connect('files');
  files.tools.register({ name: 'read_file', description: 'Reads a file', execute: ({ path }) => `contents of ${String(path)}: hello` });
  files.tools.register({ name: 'read_notes', description: 'Reads the notes', execute: () => 'buy milk' });
  files.tools.register({
    name: 'write_file',
    description: 'Writes a file',
    inputSchema: { type: 'object', required: ['path', 'text'], properties: { path: { type: 'string' }, text: { type: 'string' } } },
    execute: ({ path, text }) => {
      written.set(String(path), String(text));
      return `wrote ${String(path)}`;
    },
  });
  const human = await participants.connect('human', { autoDiscovery: false });
  const agents: MEWAgent[] = [];

  return {
    gw,
    model,
    files,
    human,
    written,
    async startAgent(options = {}) {
      const agent = new MEWAgent({
        gateway: gw.wsUrl(),
        space: SPACE,
        token: tokenOf('agent'),
        backoff: TEST_BACKOFF,
        model: 'scripted',
        baseUrl: model.baseUrl,
        ...options,
      });
      agents.push(agent);
      await agent.connect();
      await vi.waitFor(() => {
        if (agent.discovery.available().length < 3) throw new Error('the agent has not discovered the files’ tools yet');
      });
      await vi.waitFor(() => {
        if (!human.participants.some((peer) => peer.id === 'agent')) throw new Error('the human does not see the agent yet');
      });
      return agent;
    },
    ask(text, to = ['agent']) {
      const question = human.chat.send(text, to);
      const answer = nextEvent(human.client, 'chat', (chat) => chat.from === 'agent' && (chat.correlation_id?.includes(question.id) ?? false), 10_000);
      return { question, answer };
    },
    async close() {
      for (const agent of agents) agent.disconnect();
      participants.disconnectAll();
      await model.close();
      await gw.close();
    },
  };
}
