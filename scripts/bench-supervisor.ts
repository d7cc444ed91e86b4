/**
 * How long the rule supervisor takes to approve a proposal, end to end through a real gateway (`npm run bench`'s
 * last section, or alone with `node --import tsx scripts/bench-supervisor.ts`): an agent's proposal that a rule
 * approves, against the same call made directly by a participant allowed to make it. Target: decided within 100 ms.
 */
import { pathToFileURL } from 'node:url';
import { RuleSupervisor } from '../lib/rules/rule-supervisor';
import { createGatewayServer } from '../lib/host/gateway-server';
import { parseSpaceConfig } from '../lib/gateway/space-config';
import { approvalRuleInputSchema, type ApprovalRule } from '../lib/rules/approval-rule';
import { MEWParticipant } from '../lib/sdk/mew-participant';
import { timed, type LatencyRow } from './bench-bridge';

const RULES = 1000;
const CALLS = 1000;

export async function benchSupervisor(): Promise<LatencyRow[]> {
  const tokens = { human: 'bench-human-token-0001', tool: 'bench-tool-token-00002', agent: 'bench-agent-token-0003', rules: 'bench-rules-token-0004' };
  const config = parseSpaceConfig({
    space: { id: 'bench-rules' },
    limits: { rate_per_second: 1_000_000, rate_burst: 1_000_000 },
    participants: {
      human: { tokens: [tokens.human], capabilities: [{ kind: '*' }] },
      tool: { tokens: [tokens.tool], capabilities: [{ kind: 'mcp/response' }] },
      agent: { tokens: [tokens.agent], capabilities: [{ kind: ['mcp/proposal', 'mcp/withdraw'] }] },
      rules: { tokens: [tokens.rules], capabilities: [{ kind: ['mcp/request', 'mcp/reject', 'chat'] }] },
    },
    automation: { supervisor: 'rules' },
  });
  const created = { created_by: 'bench', created_at: new Date().toISOString(), version: 1 };
  // One rule approves the agent's notes; 999 others name other tools, as a space with many rules would.
  const rules: ApprovalRule[] = Array.from({ length: RULES }, (_, i) => ({
    ...approvalRuleInputSchema.parse({
      name: `rule ${i}`,
      decision: 'approve',
      match: { proposer: 'agent', tool: i === 0 ? 'note' : `tool_${i}`, arguments: { path: 'notes/*' } },
    }),
    id: `r${i}`,
    ...created,
  }));
  const gateway = createGatewayServer({ spaces: [config] });
  const port = await gateway.listen(0, '127.0.0.1');
  const connection = (token: string) => ({ gateway: `ws://127.0.0.1:${port}/ws`, space: 'bench-rules', token, autoDiscovery: false });
  const tool = new MEWParticipant(connection(tokens.tool));
  tool.tools.register({ name: 'note', security: { risk_level: 'moderate' }, execute: () => 'noted' });
  const human = new MEWParticipant(connection(tokens.human));
  const agent = new MEWParticipant(connection(tokens.agent));
  const supervisor = new RuleSupervisor({ ...connection(tokens.rules), rules: () => rules });
  try {
    await Promise.all([tool.connect(), human.connect(), agent.connect(), supervisor.connect()]);
    const call = { method: 'tools/call', params: { name: 'note', arguments: { path: 'notes/today.md' } } };
    const direct = await timed(() => human.mcpRequest('tool', call), CALLS);
    const byRule = await timed(() => agent.mcpRequest('tool', call), CALLS);
    const rows: LatencyRow[] = [
      { name: 'direct: a participant allowed to call → tool → back', ...direct },
      { name: `by rule: proposal → supervisor (${RULES} rules) → tool → back`, ...byRule },
      { name: 'added by proposing and the supervisor’s decision', p50: byRule.p50 - direct.p50 },
    ];
    console.log(`\nRule supervisor: proposal to result when a rule approves (${CALLS} sequential calls; target: decided within 100 ms)\n`);
    console.log(`${'measurement'.padEnd(64)} ${'p50 ms'.padStart(7)} ${'p99 ms'.padStart(7)}`);
    for (const row of rows) console.log(`${row.name.padEnd(64)} ${row.p50.toFixed(2).padStart(7)} ${(row.p99?.toFixed(2) ?? '–').padStart(7)}`);
    return rows;
  } finally {
    for (const p of [tool, human, agent]) p.disconnect();
    supervisor.disconnect();
    await gateway.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  await benchSupervisor();
  process.exit(0);
}
