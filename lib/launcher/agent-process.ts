import { fileURLToPath } from 'node:url';
import type { AgentSettingsInput } from '../sdk/agent';
import type { AgentEntry, LaunchSpec } from './launch-spec';
import { RUNNER_ENV, RUNNER_EXIT_POLICY, runnerConnectionEnv } from './runner-convention';

const RUN_AGENT_PATH = fileURLToPath(new URL('./run-mew-agent.ts', import.meta.url));
const TSX_LOADER = import.meta.resolve('tsx');

/**
 * The process that runs a config's `agent:` entry: this Node running `run-mew-agent.ts`, by the runner convention
 * (`RUNNER_ENV`, `RUNNER_EXIT_POLICY`): its settings as JSON in `MEW_AGENT_SETTINGS`, the connection in
 * `MEW_GATEWAY`/`MEW_SPACE`/`MEW_TOKEN` (for the launcher to fill), and the API key in the variable `api_key_env`
 * names, inherited from the server. `notConfigured` says why it would only fail: no endpoint and no key in `env`.
 *
 * @example
 * agentProcess({ model: 'llama3', base_url: 'http://127.0.0.1:11434/v1' }, process.env);
 */
export function agentProcess(
  agent: AgentEntry,
  env: Readonly<Record<string, string | undefined>>,
): Pick<LaunchSpec, 'command' | 'args' | 'env' | 'notConfigured' | 'finalExitCodes' | 'restartNowExitCode'> {
  const apiKeyEnv = agent.api_key_env ?? RUNNER_ENV.apiKey;
  const baseUrl = agent.base_url || undefined;
  const settings: Omit<AgentSettingsInput, 'apiKey'> & { apiKeyEnv: string } = {
    model: agent.model,
    apiKeyEnv,
    ...(baseUrl !== undefined && { baseUrl }),
    ...(agent.system_prompt !== undefined && { systemPrompt: agent.system_prompt }),
    ...(agent.prompts !== undefined && { prompts: agent.prompts }),
    ...(agent.max_iterations !== undefined && { maxIterations: agent.max_iterations }),
    ...(agent.context_window !== undefined && { contextWindow: agent.context_window }),
    ...(agent.stream !== undefined && { stream: agent.stream }),
    ...(agent.max_replies_per_minute !== undefined && { maxRepliesPerMinute: agent.max_replies_per_minute }),
    ...(agent.classify_chats !== undefined && { classifyChats: agent.classify_chats }),
    ...(agent.classification_threshold !== undefined && { classificationThreshold: agent.classification_threshold }),
  };
  return {
    command: process.execPath,
    args: ['--import', TSX_LOADER, RUN_AGENT_PATH],
    env: { ...runnerConnectionEnv(), [RUNNER_ENV.agentSettings]: JSON.stringify(settings) },
    ...RUNNER_EXIT_POLICY,
    ...(!baseUrl && !env[apiKeyEnv] && { notConfigured: `not configured: set ${apiKeyEnv} or agent.base_url` }),
  };
}
