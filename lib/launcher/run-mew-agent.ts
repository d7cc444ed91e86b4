/**
 * Runs one MEWAgent as its own process:
 *
 *   npm run agent -- --gateway ws://127.0.0.1:3000/ws --space demo --token T --model gpt-4o-mini [--base-url U]
 *
 * The server starts a config's `agent:` entry the same way, by the runner convention (`runner-convention.ts`): the
 * connection in MEW_GATEWAY, MEW_SPACE and MEW_TOKEN and its settings in MEW_AGENT_SETTINGS. The API key comes from
 * OPENAI_API_KEY (or the variable the settings name); a keyless local endpoint needs only a base URL. Exit codes:
 * RUNNER_EXIT_CODES, by `AGENT_EXIT_CODES` once the agent ended (`participant/restart` asks for a fresh process).
 */
import { parseArgs } from 'node:util';
import { AgentConfigurationError, MEWAgent, type AgentSettingsInput } from '../sdk/agent';
import { ConnectionClosedError } from '../sdk/sdk-errors';
import { AGENT_EXIT_CODES, readRunnerConnection, RUNNER_ENV, RUNNER_EXIT_CODES, RUNNER_EXIT_FLUSH_MS } from './runner-convention';

const USAGE = 'usage: npm run agent -- --gateway ws://HOST/ws --space SPACE --token TOKEN --model MODEL [--base-url URL]';

function fail(code: number, message: string): never {
  console.error(message);
  process.exit(code);
}

const { values } = parseArgs({
  options: { gateway: { type: 'string' }, space: { type: 'string' }, token: { type: 'string' }, model: { type: 'string' }, 'base-url': { type: 'string' } },
});
let fromServer: Partial<AgentSettingsInput> & { apiKeyEnv?: string } = {};
try {
  fromServer = JSON.parse(process.env[RUNNER_ENV.agentSettings] ?? '{}');
} catch {
  fail(RUNNER_EXIT_CODES.usage, `${RUNNER_ENV.agentSettings} is not JSON`);
}
const { apiKeyEnv = RUNNER_ENV.apiKey, ...settings } = fromServer;
const { gateway, space, token } = readRunnerConnection(values);
const model = values.model ?? settings.model;
const baseUrl = values['base-url'] ?? settings.baseUrl;
if (!gateway || !space || !token || !model) fail(RUNNER_EXIT_CODES.usage, USAGE);

let agent: MEWAgent;
try {
  agent = new MEWAgent({ ...settings, gateway, space, token, model, baseUrl, apiKey: process.env[apiKeyEnv] || undefined });
} catch (error) {
  if (!(error instanceof AgentConfigurationError)) throw error;
  fail(RUNNER_EXIT_CODES.notConfigured, `agent: ${error.message.replace(RUNNER_ENV.apiKey, apiKeyEnv)}`);
}

agent.client.on('status', ({ status }) => console.log(`[agent] ${status}`));
agent.on('error', (error) => console.error('[agent] error:', error.message));
agent.onTurn(({ chats, outcome, answer, error }) => {
  const asked = chats.map((chat) => `${chat.from}: ${chat.text}`).join(' | ');
  console.log(`[agent] ${outcome} (${asked}) → ${answer}${error ? ` [${error.message}]` : ''}`);
});

let connected = false;
const stop = () => (connected ? agent.stop() : process.exit(RUNNER_EXIT_CODES.stopped));
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, stop);
// Under a supervisor an IPC channel ties this process to it: when the supervisor goes, so does the agent.
if (process.send) process.once('disconnect', stop);

await agent.connect().catch((error: unknown) => {
  if (error instanceof ConnectionClosedError) fail(RUNNER_EXIT_CODES.refused, `the gateway refused the agent: ${error.message}`);
  throw error;
});
connected = true;
console.log(`[agent] ${agent.id} joined ${space}; model ${model} at ${baseUrl ?? 'api.openai.com'}`);

const exit = await agent.exited;
console.log(`[agent] exiting: ${exit}`);
setTimeout(() => process.exit(AGENT_EXIT_CODES[exit]), RUNNER_EXIT_FLUSH_MS);
