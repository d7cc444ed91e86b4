/**
 * How long the approval rules take to decide one proposal at 1 000 rules (`npm run bench`'s rules section, or run
 * alone with `node --import tsx scripts/bench-rules.ts`). Target: ≤ 50 µs per proposal.
 */
import { pathToFileURL } from 'node:url';
import { approvalRuleInputSchema } from '../lib/rules/approval-rule';
import { RuleEngine } from '../lib/rules/rule-engine';

const RULES = 1000;
const DECISIONS = 20_000;

/** Measures and prints; resolves with µs per decision (a matching proposal and one no rule matches). */
export function benchRules(): { literalUs: number; missUs: number; globUs: number } {
  const created = { created_by: 'bench', created_at: new Date().toISOString(), version: 1 };
  const engineOf = (tool: (i: number) => string) =>
    new RuleEngine(
      Array.from({ length: RULES }, (_, i) => ({
        ...approvalRuleInputSchema.parse({
          name: `rule ${i}`,
          decision: i % 10 === 0 ? 'reject' : 'approve',
          match: { proposer: ['agent-*', 'scribe'], tool: tool(i), arguments: { path: `dir${i}/*`, '$.mode': '!overwrite' } },
        }),
        id: `r${i}`,
        ...created,
      })),
    );
  const proposal = (tool: string) => ({
    proposer: 'agent-7',
    targets: ['files'],
    method: 'tools/call',
    tool,
    arguments: { path: 'dir999/notes.md', content: 'x'.repeat(200) },
  });
  const time = (engine: RuleEngine, facts: ReturnType<typeof proposal>) => {
    for (let i = 0; i < 1000; i++) engine.decide(facts, Date.now());
    const started = performance.now();
    for (let i = 0; i < DECISIONS; i++) engine.decide(facts, Date.now());
    return ((performance.now() - started) * 1000) / DECISIONS;
  };
  const literal = engineOf((i) => `tool_${i}`);
  const literalUs = time(literal, proposal('tool_999'));
  const missUs = time(literal, proposal('tool_unknown'));
  // Rules whose tool is a glob cannot be indexed by tool: every one is tried.
  const globUs = time(
    engineOf((i) => `tool_${i}_*`),
    proposal('tool_999_x'),
  );
  console.log(`\nApproval rules: ${RULES} rules, ${DECISIONS} decisions each (target ≤ 50 µs per decision)`);
  console.log(`  rules naming their tool, the last one matches: ${literalUs.toFixed(1)} µs per decision`);
  console.log(`  rules naming their tool, none matches:         ${missUs.toFixed(1)} µs per decision`);
  console.log(`  rules with a tool glob, the last one matches:  ${globUs.toFixed(1)} µs per decision`);
  return { literalUs, missUs, globUs };
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) benchRules();
