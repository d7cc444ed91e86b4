/**
 * Test fixture: a gateway whose space has a `human` (connected, may do anything) and `files`, the participant the
 * bridges under test join as. Shared by the bridge tests; nothing in the product imports it.
 */
import { startTestGateway, spaceConfig, tokenOf } from '../../gateway/testing';
import type { AnyEnvelope } from '../../protocol';
import type { MEWParticipant } from '../../sdk/mew-participant';
import { participantFactory } from '../../sdk/testing';
import { McpBridge, type McpBridgeOptions } from '../mcp-bridge';
import type { McpServerState } from '../mcp-server-connection';
import type { McpServerSpec } from '../mcp-server-spec';

/** What a bridge may send: its server's answers, its tool list changing, and its status. */
export const FILES_CAPABILITIES = [
  { kind: 'mcp/response' },
  { kind: 'mcp/request', payload: { method: 'notifications/tools/list_changed' } },
  { kind: 'participant/status' },
];

/** Restarts quick enough for a test. */
const FAST_RESTART = { minDelayMs: 50, maxDelayMs: 200 };

export interface BridgedSpace {
  human: MEWParticipant;
  /** A bridge of `server` joined as `files` (fast restarts unless `options` say otherwise); close() stops it. */
  startBridge(server: McpServerSpec, options?: Partial<McpBridgeOptions>): Promise<McpBridge>;
  /** Resolves with the first `participant/status` in which the bridge reports its server `state`. */
  statusReport(state: McpServerState): Promise<AnyEnvelope>;
  /** Stops the bridges started so far. */
  stopBridges(): Promise<void>;
  /** Stops the bridges, then disconnects the human and closes the gateway. */
  close(): Promise<void>;
}

export async function startBridgedSpace(space: string): Promise<BridgedSpace> {
  const gateway = await startTestGateway(spaceConfig(space, { human: [{ kind: '*' }], files: FILES_CAPABILITIES }));
  const participants = participantFactory(space, () => gateway.wsUrl(), tokenOf);
  const human = await participants.connect('human');
  const bridges: McpBridge[] = [];
  async function stopBridges() {
    await Promise.all(bridges.splice(0).map((bridge) => bridge.stop()));
  }
  return {
    human,
    async startBridge(server, options = {}) {
      const bridge = new McpBridge({
        gateway: gateway.wsUrl(),
        space,
        token: tokenOf('files'),
        backoff: FAST_RESTART,
        server,
        log: () => undefined,
        ...options,
      });
      bridges.push(bridge);
      await bridge.connect();
      return bridge;
    },
    statusReport(state) {
      return new Promise((resolve) => {
        const off = human.client.on('participant/status', (envelope) => {
          if (envelope.from === 'files' && (envelope.payload as { mcp_server?: { state?: string } }).mcp_server?.state === state) {
            off();
            resolve(envelope);
          }
        });
      });
    },
    stopBridges,
    async close() {
      await stopBridges();
      participants.disconnectAll();
      await gateway.close();
    },
  };
}
