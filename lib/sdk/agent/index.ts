/**
 * SDK layer 3, MEWAgent, and the agent runtime it runs on: its own entry point, so the `openai` client it needs stays
 * out of bundles that import only the participant (the control room).
 */
export { MEWAgent, type AgentTurn } from './mew-agent';
export { AgentRuntime, type AgentExit, type AgentRuntimeOptions, type AgentState } from './agent-runtime';
export { estimateTokens, WorkingContext, type ContextFreed, type ContextSize, type WorkingContextOptions } from './working-context';
export { AgentConfigurationError, assertAgentConfigured, type AgentSettings, type AgentSettingsInput, type MEWAgentOptions } from './agent-options';
