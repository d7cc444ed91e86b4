/**
 * `npm run agent -- --gateway ws://localhost:3000/ws --space demo --token T --model gpt-4o-mini [--base-url U]`:
 * one MEWAgent in a space, answering the chats addressed to it (or mentioning it) through an OpenAI-compatible
 * endpoint. The API key comes from OPENAI_API_KEY; a keyless local endpoint needs only --base-url.
 */
import { parseArgs } from 'node:util';
import { AgentConfigurationError, MEWAgent } from '../lib/sdk/agent';

const USAGE = 'usage: npm run agent -- --gateway ws://HOST/ws --space SPACE --token TOKEN --model MODEL [--base-url URL]';

const { values } = parseArgs({
  options: {
    gateway: { type: 'string' },
    space: { type: 'string' },
    token: { type: 'string' },
    model: { type: 'string' },
    'base-url': { type: 'string' },
  },
});
const { gateway, space, token, model } = values;
if (!gateway || !space || !token || !model) {
  console.error(USAGE);
  process.exit(2);
}
const apiKey = process.env.OPENAI_API_KEY || undefined;
const baseUrl = values['base-url'];

let agent: MEWAgent;
try {
  agent = new MEWAgent({ gateway, space, token, model, apiKey, baseUrl });
} catch (error) {
  if (!(error instanceof AgentConfigurationError)) throw error;
  console.error(`agent: ${error.message}`);
  process.exit(2);
}

agent.client.on('status', ({ status }) => console.log(`[agent] ${status}`));
agent.on('error', (error) => console.error('[agent] error:', error.message));
agent.onTurn(({ chats, outcome, answer, error }) => {
  const asked = chats.map((chat) => `${chat.from}: ${chat.text}`).join(' | ');
  console.log(`[agent] ${outcome} (${asked}) → ${answer}${error ? ` [${error.message}]` : ''}`);
});

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    agent.disconnect();
    process.exit(0);
  });
}

await agent.connect();
console.log(`[agent] ${agent.id} joined ${space}; model ${model} at ${baseUrl ?? 'api.openai.com'}`);
