/**
 * Runs one demo agent as its own process:
 *
 *   node --import tsx lib/demo/run-agent.ts <scribe|auditor>
 *
 * Environment, by the runner convention (`RUNNER_ENV`): MEW_GATEWAY (ws://host:port/ws), MEW_SPACE, MEW_TOKEN,
 * MEW_DATA_DIR (required) and MEW_DEMO_PACE_MS (optional, the gap between steps). The token travels only in the
 * environment, never on the command line or in a log line. Exit codes: `RUNNER_EXIT_CODES` (the supervisor restarts
 * on 75 at once, on a crash with backoff, and not at all on 64 or 77), by `AGENT_EXIT_CODES` once the agent ended.
 */
import { AGENT_EXIT_CODES, readRunnerConnection, RUNNER_ENV, RUNNER_EXIT_CODES, RUNNER_EXIT_FLUSH_MS } from '../launcher/runner-convention';
import { ConnectionClosedError } from '../sdk/sdk-errors';
import type { DemoAgent } from './demo-agent';
import { isSdkAgentName, startDemoAgent } from './demo-agents';

const REQUIRED_ENV = [RUNNER_ENV.gateway, RUNNER_ENV.space, RUNNER_ENV.token, RUNNER_ENV.dataDir] as const;

function exitWith(code: number, message: string): never {
  console.error(message);
  process.exit(code);
}

const name = process.argv[2] ?? '';
if (!isSdkAgentName(name)) exitWith(RUNNER_EXIT_CODES.usage, 'usage: node --import tsx lib/demo/run-agent.ts <scribe|auditor>');
const missing = REQUIRED_ENV.filter((key) => !process.env[key]);
if (missing.length > 0) exitWith(RUNNER_EXIT_CODES.usage, `missing environment: ${missing.join(', ')}`);
const pace = process.env[RUNNER_ENV.demoPaceMs];
const paceMs = pace === undefined ? undefined : Number(pace);
if (paceMs !== undefined && !(paceMs > 0)) exitWith(RUNNER_EXIT_CODES.usage, `${RUNNER_ENV.demoPaceMs} must be a positive number of milliseconds`);

// Present (checked above); the token is taken out of the environment: nothing this process spawns or dumps needs it.
const { gateway, space, token } = readRunnerConnection();

// Installed before connecting, which may wait a long time for the gateway: a stop must work meanwhile too.
let agent: DemoAgent | undefined;
const stop = () => (agent ? agent.stop() : process.exit(RUNNER_EXIT_CODES.stopped));
for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, stop);
// Under the supervisor an IPC channel ties this process to it: when the supervisor dies, so does the agent (an
// orphan would keep reconnecting and fight its replacement for the participant id).
if (process.send) {
  if (process.connected) process.once('disconnect', stop);
  else stop();
}

agent = await startDemoAgent(name, {
  gatewayUrl: gateway!,
  space: space!,
  token: token!,
  dataDir: process.env[RUNNER_ENV.dataDir]!,
  paceMs,
}).catch((error: unknown) => {
  if (error instanceof ConnectionClosedError) exitWith(RUNNER_EXIT_CODES.refused, `the gateway refused ${name}: ${error.message}`);
  throw error;
});
console.log(`connected to space "${space}" as ${agent.id}`);

const exit = await agent.exited;
console.log(`exiting: ${exit}`);
setTimeout(() => process.exit(AGENT_EXIT_CODES[exit]), RUNNER_EXIT_FLUSH_MS);
