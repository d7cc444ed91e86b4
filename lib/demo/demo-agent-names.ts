/** The demo space's live agents; each name is also its participant id in `demo-space.yaml`. */
export const DEMO_AGENT_NAMES = ['files', 'scribe', 'auditor'] as const;

export type DemoAgentName = (typeof DEMO_AGENT_NAMES)[number];

export function isDemoAgentName(name: string): name is DemoAgentName {
  return (DEMO_AGENT_NAMES as readonly string[]).includes(name);
}
