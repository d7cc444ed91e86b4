/**
 * Fixtures for the demo agents' co-located tests: a real gateway on an ephemeral port serving the real
 * `demo-space.yaml` with a temporary data directory (so the gateway mints the tokens, as in production), and
 * participants to watch and drive the agents. Nothing in the product imports it.
 */
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { vi } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { startGatewayWith, type TestGateway } from '../gateway/testing';
import type { AnyEnvelope } from '../protocol';
import { MEWParticipant, type MEWParticipantOptions } from '../sdk/mew-participant';
import { filesystemServer } from '../bridge/filesystem-server';
import { McpBridge } from '../bridge/mcp-bridge';
import type { DemoAgent, DemoAgentOptions } from './demo-agent';
import { FILES_PARTICIPANT_ID } from './demo-defaults';
import { sandboxPath, seedSandbox } from './sandbox';

const DEMO_SPACE_FILE = fileURLToPath(new URL('./demo-space.yaml', import.meta.url));

/** The demo space's id, as `demo-space.yaml` names it. */
export const DEMO_SPACE = 'demo';

/** A pace that keeps tests fast: the scribe thinks and proposes within tens of milliseconds. */
export const TEST_PACE_MS = 40;

const TEST_BACKOFF = { minDelayMs: 20, maxDelayMs: 100 };
const CLOSE_WAIT_MS = 1_000;
/** `expect.poll`'s default (1 s) is too short on a loaded CI machine; a passing poll returns as soon as it passes. */
const POLL_TIMEOUT_MS = 10_000;
const CLOSE_POLL_MS = 10;

export interface DemoTestSpace {
  gw: TestGateway;
  dataDir: string;
  tokens: Record<string, string>;
  /** Connection options for an agent started in this process (its log lines are kept in `logs`). */
  agentOptions(name: string, extra?: Partial<DemoAgentOptions>): DemoAgentOptions;
  /** Connects a participant of the space (by default without tool discovery) and resolves once welcomed. */
  connect(id: string, options?: Partial<MEWParticipantOptions>): Promise<MEWParticipant>;
  /** Keeps an agent so `close` stops it. */
  track(agent: DemoAgent): DemoAgent;
  /** Starts `files` as the demo does: the official filesystem server on the seeded sandbox, through the bridge. */
  startFiles(): Promise<McpBridge>;
  /** The sandbox `files` serves. */
  sandbox: string;
  logs: string[];
  close(): Promise<void>;
}

/** Starts the gateway with the demo space and a fresh data directory (and lengthens `expect.poll`'s timeout). */
export async function startDemoTestSpace(): Promise<DemoTestSpace> {
  vi.setConfig({ expect: { poll: { timeout: POLL_TIMEOUT_MS } } });
  const dataDir = await mkdtemp(join(tmpdir(), 'mew-demo-'));
  const gw = await startGatewayWith({ configs: [parseYaml(readFileSync(DEMO_SPACE_FILE, 'utf8'))], dataDir });
  const tokens = { ...gw.gateway.spaces.get(DEMO_SPACE)!.services.records.mintedTokens() };
  const participants: MEWParticipant[] = [];
  const agents: DemoAgent[] = [];
  const bridges: McpBridge[] = [];
  const logs: string[] = [];
  const sandbox = sandboxPath(dataDir, DEMO_SPACE);
  return {
    gw,
    dataDir,
    tokens,
    logs,
    agentOptions: (name, extra = {}) => ({
      gatewayUrl: gw.wsUrl(),
      space: DEMO_SPACE,
      token: tokens[name],
      dataDir,
      paceMs: TEST_PACE_MS,
      log: (line) => logs.push(`[${name}] ${line}`),
      ...extra,
    }),
    async connect(id, options = {}) {
      const participant = new MEWParticipant({
        gateway: gw.wsUrl(),
        space: DEMO_SPACE,
        token: tokens[id],
        autoDiscovery: false,
        backoff: TEST_BACKOFF,
        ...options,
      });
      participants.push(participant);
      await participant.connect();
      return participant;
    },
    track(agent) {
      agents.push(agent);
      return agent;
    },
    sandbox,
    async startFiles() {
      const bridge = new McpBridge({
        gateway: gw.wsUrl(),
        space: DEMO_SPACE,
        token: tokens[FILES_PARTICIPANT_ID],
        backoff: TEST_BACKOFF,
        server: filesystemServer(seedSandbox(sandbox)),
        log: (line) => logs.push(`[files] ${line}`),
      });
      bridges.push(bridge);
      await bridge.connect();
      return bridge;
    },
    async close() {
      for (const agent of agents) agent.stop();
      await Promise.all(bridges.map((bridge) => bridge.stop()));
      for (const participant of participants) participant.disconnect();
      // Let the gateway see them leave before it closes (and its audit log with it).
      for (let waited = 0; (gw.gateway.spaces.get(DEMO_SPACE)?.connectedCount ?? 0) > 0 && waited < CLOSE_WAIT_MS; waited += CLOSE_POLL_MS) {
        await sleep(CLOSE_POLL_MS);
      }
      await gw.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** Every envelope a participant receives from now on that matches, in order. */
export function collect(participant: MEWParticipant, match: (envelope: AnyEnvelope) => boolean): AnyEnvelope[] {
  const seen: AnyEnvelope[] = [];
  participant.client.on('message', (envelope) => match(envelope) && seen.push(envelope));
  return seen;
}

/** Sends a participant control (`participant/pause`, `participant/compact`, ...) to `target`. */
export function control(from: MEWParticipant, target: string, kind: string, payload: Record<string, unknown> = {}): string {
  return from.send({ kind, to: [target], payload } as Parameters<MEWParticipant['send']>[0]).id;
}
