/** The demo space's live participants, as the server's launcher runs them (Node only). */
export { DEMO_AGENT_NAMES, type DemoAgentName } from './demo-agent-names';
