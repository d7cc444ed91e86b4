import { MEWParticipant, type MEWParticipantOptions } from '../sdk/mew-participant';
import type { Proposal } from '../sdk/model/proposals-slice';
import type { ApprovalRule } from '../rules/approval-rule';
import { RuleEngine, type RuleOutcome } from '../rules/rule-engine';

export interface RuleSupervisorOptions extends Omit<MEWParticipantOptions, 'autoDiscovery'> {
  /** The space's current rules (read again on `reload`). */
  rules(): ApprovalRule[];
  /** Told of every decision a rule made or would have made (shadow), for logs and tests. */
  onDecision?(proposal: Proposal, outcome: RuleOutcome): void;
  log?(line: string): void;
}

/**
 * The participant that applies a space's approval rules, running inside the server but joined through the gateway
 * like anyone (its capabilities are the config's: fulfilling and rejecting proposals, nothing else). Each pending
 * proposal is decided the moment it arrives: fulfilled when an approve rule wins, rejected with the rule's reason
 * (and a chat naming the rule) when a reject rule wins, left to humans otherwise. A tool's MGP risk comes from the
 * target's `tools/list`; when it cannot be read the tool counts as dangerous, so no rule approves it unseen.
 *
 * @example
 * const supervisor = new RuleSupervisor({ gateway, space: 'demo', token, rules: () => records.list() });
 * await supervisor.connect();
 */
export class RuleSupervisor {
  readonly participant: MEWParticipant;
  private engine: RuleEngine;

  constructor(private readonly options: RuleSupervisorOptions) {
    const { rules, onDecision: _onDecision, log: _log, ...participant } = options;
    this.engine = new RuleEngine(rules());
    this.participant = new MEWParticipant({ ...participant, autoDiscovery: false });
    this.participant.on('proposal', (proposal) => {
      if (proposal.state === 'pending') void this.decide(proposal);
    });
  }

  connect(): Promise<void> {
    return this.participant.connect();
  }

  disconnect(): void {
    this.participant.disconnect();
  }

  /** The rules changed: compile them again (hourly quotas start afresh) and apply them to what is pending now. */
  reload(): void {
    this.engine = new RuleEngine(this.options.rules());
    for (const proposal of this.participant.proposals.pending()) void this.decide(proposal);
  }

  private async decide(proposal: Proposal): Promise<void> {
    const facts = { proposer: proposal.proposer, targets: [...proposal.targets], method: proposal.method, tool: proposal.toolName, arguments: proposal.arguments };
    const engine = this.engine;
    if (engine.size === 0) return;
    // A tool call's risk decides whether an approve rule may act; other methods carry none.
    const risk = proposal.toolName === undefined ? undefined : await this.riskOf(proposal);
    const outcome = engine.decide(facts, Date.now(), risk);
    this.options.onDecision?.(proposal, outcome);
    const { rule } = outcome;
    if (!rule || this.participant.proposals.get(proposal.id)?.state !== 'pending') return;
    const by = `rule "${rule.name}" (v${rule.version})`;
    try {
      if (outcome.decision === 'approve') {
        await this.participant.proposals.fulfil(proposal.id).outcome;
      } else if (outcome.decision === 'reject') {
        this.participant.proposals.reject(proposal.id, rule.reason ?? 'policy', `Rejected by ${by}${rule.reason ? `: ${rule.reason}` : ''}.`);
      }
    } catch (error) {
      this.options.log?.(`${by} could not ${outcome.decision} ${proposal.id}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  /**
   * The target tool's MGP risk, as the proposal shows it or from the target's `tools/list` (discovered once, then
   * cached); a tool that declares none, or cannot be listed, counts as dangerous.
   */
  private async riskOf(proposal: Proposal): Promise<{ risk_level?: string; confirmation_required?: boolean }> {
    const target = proposal.targets[0];
    if (proposal.risk) return proposal.risk;
    if (!target) return { risk_level: 'dangerous' };
    try {
      const tools = await this.participant.discovery.discover(target);
      return tools.find((tool) => tool.name === proposal.toolName)?.security ?? { risk_level: 'dangerous' };
    } catch {
      return { risk_level: 'dangerous' };
    }
  }
}
