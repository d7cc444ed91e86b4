/** The demo space's live participants, as the server's launcher runs them (Node only). */
export { demoLaunchSpecs, type DemoLaunchOptions } from './demo-launch';
export { DEMO_AGENT_NAMES, type DemoAgentName } from './demo-agent-names';
