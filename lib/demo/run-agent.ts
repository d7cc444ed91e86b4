/**
 * Runs one demo agent as its own process:
 *
 *   node --import tsx lib/demo/run-agent.ts <scribe|auditor>
 *
 * Environment: MEW_GATEWAY_URL (ws://host:port/ws), MEW_SPACE, MEW_TOKEN, MEW_DATA_DIR (required) and
 * MEW_DEMO_PACE_MS (optional, the gap between steps). The token travels only in the environment, never on the
 * command line or in a log line. Exit codes: `AGENT_EXIT_CODES` (the supervisor restarts on 75 at once, on a
 * crash with backoff, and not at all on 0, 64 or 77).
 */
import { ConnectionClosedError } from '../sdk/sdk-errors';
import type { AgentRuntime } from './agent-runtime';
import { AGENT_EXIT_CODES, exitCodeFor } from './agent-exit-codes';
import { EXIT_FLUSH_MS } from './demo-defaults';
import { isSdkAgentName, startDemoAgent } from './demo-agents';

const REQUIRED_ENV = ['MEW_GATEWAY_URL', 'MEW_SPACE', 'MEW_TOKEN', 'MEW_DATA_DIR'] as const;

function exitWith(code: number, message: string): never {
  console.error(message);
  process.exit(code);
}

const name = process.argv[2] ?? '';
if (!isSdkAgentName(name)) exitWith(AGENT_EXIT_CODES.usage, 'usage: node --import tsx lib/demo/run-agent.ts <scribe|auditor>');
const missing = REQUIRED_ENV.filter((key) => !process.env[key]);
if (missing.length > 0) exitWith(AGENT_EXIT_CODES.usage, `missing environment: ${missing.join(', ')}`);
const paceMs = process.env.MEW_DEMO_PACE_MS === undefined ? undefined : Number(process.env.MEW_DEMO_PACE_MS);
if (paceMs !== undefined && !(paceMs > 0)) exitWith(AGENT_EXIT_CODES.usage, 'MEW_DEMO_PACE_MS must be a positive number of milliseconds');

const token = process.env.MEW_TOKEN!;
delete process.env.MEW_TOKEN; // nothing this process spawns or dumps needs it
const space = process.env.MEW_SPACE!;

// Installed before connecting, which may wait a long time for the gateway: a stop must work meanwhile too.
let agent: AgentRuntime | undefined;
const stop = () => (agent ? agent.stop() : process.exit(AGENT_EXIT_CODES.stopped));
for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, stop);
// Under the supervisor an IPC channel ties this process to it: when the supervisor dies, so does the agent (an
// orphan would keep reconnecting and fight its replacement for the participant id).
if (process.send) {
  if (process.connected) process.once('disconnect', stop);
  else stop();
}

agent = await startDemoAgent(name, {
  gatewayUrl: process.env.MEW_GATEWAY_URL!,
  space,
  token,
  dataDir: process.env.MEW_DATA_DIR!,
  paceMs,
}).catch((error: unknown) => {
  if (error instanceof ConnectionClosedError) exitWith(AGENT_EXIT_CODES.connectionRefused, `the gateway refused ${name}: ${error.message}`);
  throw error;
});
console.log(`connected to space "${space}" as ${agent.participant.id}`);

const exit = await agent.exited;
console.log(`exiting: ${exit}`);
// Let the socket flush the last frames (a status, the close) before the process ends.
setTimeout(() => process.exit(exitCodeFor(exit)), EXIT_FLUSH_MS);
