/**
 * SDK layer 3, MEWAgent: its own entry point, so the `openai` client it needs stays out of bundles that import only
 * the participant (the control room).
 */
export { MEWAgent, type AgentTurn } from './mew-agent';
export { AgentConfigurationError, assertAgentConfigured, type AgentSettings, type AgentSettingsInput, type MEWAgentOptions } from './agent-options';
