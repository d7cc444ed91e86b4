import type { AgentRuntime, DemoAgentOptions } from './agent-runtime';
import { startAuditorAgent } from './auditor-agent';
import type { DemoAgentName } from './demo-agent-names';
import { startFilesAgent } from './files-agent';
import { startScribeAgent } from './scribe-agent';

const STARTERS: Record<DemoAgentName, (options: DemoAgentOptions) => Promise<AgentRuntime>> = {
  files: startFilesAgent,
  scribe: startScribeAgent,
  auditor: startAuditorAgent,
};

/**
 * Starts one demo agent in this process and resolves once it is connected.
 *
 * @example
 * const scribe = await startDemoAgent('scribe', { gatewayUrl, space: 'demo', token, dataDir: 'data' });
 * console.log(await scribe.exited); // 'restart' after a participant/restart
 */
export function startDemoAgent(name: DemoAgentName, options: DemoAgentOptions): Promise<AgentRuntime> {
  return STARTERS[name](options);
}
