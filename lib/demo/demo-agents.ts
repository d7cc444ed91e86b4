import { startAuditorAgent } from './auditor-agent';
import type { DemoAgent, DemoAgentOptions } from './demo-agent';
import type { DemoAgentName } from './demo-agent-names';
import { startScribeAgent } from './scribe-agent';

/** The demo agents built on the SDK (`files` is an MCP server behind the bridge, not one of them). */
export type SdkAgentName = Exclude<DemoAgentName, 'files'>;

const STARTERS: Record<SdkAgentName, (options: DemoAgentOptions) => Promise<DemoAgent>> = {
  scribe: startScribeAgent,
  auditor: startAuditorAgent,
};

export function isSdkAgentName(name: string): name is SdkAgentName {
  return Object.hasOwn(STARTERS, name);
}

/**
 * Starts one demo agent in this process and resolves once it is connected.
 *
 * @example
 * const scribe = await startDemoAgent('scribe', { gatewayUrl, space: 'demo', token, dataDir: 'data' });
 * console.log(await scribe.exited); // 'restart' after a participant/restart
 */
export function startDemoAgent(name: SdkAgentName, options: DemoAgentOptions): Promise<DemoAgent> {
  return STARTERS[name](options);
}
