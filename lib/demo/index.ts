/** The demo space's live agents and their supervisor (Node only). */
export { startDemoAgents, type DemoAgents, type DemoAgentsOptions, type SupervisedAgent } from './agent-supervisor';
export { AGENT_EXIT_CODES } from './agent-exit-codes';
export { DEMO_AGENT_NAMES, type DemoAgentName } from './demo-agent-names';
