import { z } from 'zod';
import { matchGlob } from '../capabilities/glob';
import { isDangerousRisk, type ToolSecurity } from '../protocol';

/** A number of approvals: a whole number, at least 1. */
const approvalCount = z
  .number({ error: 'must be a positive integer (how many distinct participants approve)' })
  .int('must be a positive integer (how many distinct participants approve)')
  .positive('must be a positive integer (how many distinct participants approve)');

/**
 * The space config's `approvals`: how many distinct participants must approve a proposed tool call before it runs,
 * by the tool's MGP risk level (default 1 each), or by tool name (`tools: {"<glob>": n}`, which wins over the
 * level; when several globs match, the largest count). A tool of undeclared risk, confirm-first or of a level other
 * than `safe` or `moderate` counts as `dangerous`, as the approval rules count it.
 *
 * @example
 * approvals: {dangerous: 2, tools: {"deploy_*": 3, "read_*": 1}}
 */
export const approvalPolicySchema = z.strictObject({
  safe: approvalCount.optional(),
  moderate: approvalCount.optional(),
  dangerous: approvalCount.optional(),
  tools: z.record(z.string().min(1, 'a tool pattern cannot be empty'), approvalCount).optional(),
});

export type ApprovalPolicy = z.infer<typeof approvalPolicySchema>;

/** The risk level that counts for approvals: `safe` and `moderate` as declared, everything else `dangerous`. */
export function approvalRiskLevel(risk: Pick<ToolSecurity, 'risk_level' | 'confirmation_required'> | undefined): 'safe' | 'moderate' | 'dangerous' {
  if (isDangerousRisk(risk, true)) return 'dangerous';
  const level = risk?.risk_level;
  return level === 'safe' || level === 'moderate' ? level : 'dangerous';
}

/**
 * How many distinct participants must approve a call of `tool` whose risk is `risk` (undefined: undeclared or
 * unknown): a matching tool pattern's count, else its risk level's, else 1.
 *
 * @example
 * requiredApprovals({ dangerous: 2 }, 'write_file', { risk_level: 'dangerous' }); // 2
 * requiredApprovals({ dangerous: 2, tools: { 'write_*': 1 } }, 'write_file', undefined); // 1
 */
export function requiredApprovals(policy: ApprovalPolicy | undefined, tool: string, risk: ToolSecurity | undefined): number {
  if (!policy) return 1;
  let byPattern = 0;
  for (const [glob, count] of Object.entries(policy.tools ?? {})) if (count > byPattern && matchGlob(glob, tool)) byPattern = count;
  if (byPattern > 0) return byPattern;
  return policy[approvalRiskLevel(risk)] ?? 1;
}

/** Whether any tool could need more than one approval under `policy` (else the gateway has nothing to count). */
export function mayNeedSeveral(policy: ApprovalPolicy | undefined): boolean {
  if (!policy) return false;
  return [policy.safe, policy.moderate, policy.dangerous, ...Object.values(policy.tools ?? {})].some((n) => n !== undefined && n > 1);
}
