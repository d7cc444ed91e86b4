import { BoundedMap } from '../collections/bounded-map';
import { withRuleRef, type RuleRef, type ToolSecurity } from '../protocol';
import { MEWParticipant, type MEWParticipantOptions } from '../sdk/mew-participant';
import type { Proposal } from '../sdk/model/proposals-slice';
import type { ApprovalRule, ProposalTimeout, RuleEventType, TimeoutPolicy } from '../rules/approval-rule';
import { RuleEngine, riskForRules, type RuleOutcome } from '../rules/rule-engine';
import { proposalFacts } from '../rules/rule-shape';

/** Proposals whose shadow approvals the supervisor remembers, the oldest forgotten first. */
const REMEMBERED_PROPOSALS = 5_000;

/**
 * An escalation comes at the latest this long before the proposer's own deadline (or half its timeout, if that is
 * shorter), so whoever it alerts still has time to decide before the proposal is withdrawn.
 */
export const ESCALATION_LEAD_MS = 60_000;

/**
 * When a timeout acts on a proposal (epoch ms) and how long the proposal will have waited by then (seconds): the
 * policy's delay counted from the proposal's own time (its `ts`, the same for every participant), except that an
 * escalation is brought forward to leave `ESCALATION_LEAD_MS` (at most half the proposer's timeout) before the
 * proposer's deadline: an alarm at the moment the proposal vanishes helps nobody.
 *
 * @example
 * // The demo: dangerous proposals escalate after 120 s, and the scribe withdraws its own after 2 minutes.
 * timeoutSchedule({ at: 0, timeoutMs: 120_000, deadline: 120_000, deadlineSource: 'proposer' }, { after_seconds: 120, action: 'escalate' });
 * // { at: 60_000, waitedSeconds: 60 }
 */
export function timeoutSchedule(
  proposal: Pick<Proposal, 'at' | 'timeoutMs' | 'deadline' | 'deadlineSource'>,
  timeout: ProposalTimeout,
): { at: number; waitedSeconds: number } {
  const planned = proposal.at + timeout.after_seconds * 1000;
  const { deadline, timeoutMs } = proposal;
  if (timeout.action !== 'escalate' || proposal.deadlineSource !== 'proposer' || deadline === undefined || timeoutMs === undefined) {
    return { at: planned, waitedSeconds: timeout.after_seconds };
  }
  const latest = deadline - Math.min(ESCALATION_LEAD_MS, timeoutMs / 2);
  if (planned <= latest) return { at: planned, waitedSeconds: timeout.after_seconds };
  const at = Math.max(proposal.at, latest);
  return { at, waitedSeconds: Math.round((at - proposal.at) / 100) / 10 };
}

/**
 * What the rules decide about one proposal, as the supervisor acts on it (no network: the bench times it too): the
 * engine's outcome at the proposal's risk, and the decision to send, if any. A rule's approval of a tool redefined
 * since it was pinned (`toolChanged`, asked only then) is withheld (`redefined`): a human's call, whatever the rules say.
 */
export function ruleVerdict(
  engine: RuleEngine,
  proposal: Pick<Proposal, 'proposer' | 'target' | 'targets' | 'method' | 'toolName' | 'arguments'>,
  risk: ToolSecurity | undefined,
  toolChanged: ((participant: string, tool: string) => boolean) | undefined,
  now = Date.now(),
): { outcome: RuleOutcome; decision?: 'approve' | 'reject'; redefined: boolean } {
  const outcome: RuleOutcome =
    engine.size === 0 ? { decision: 'none', shadow: [] } : engine.decide(proposalFacts(proposal), now, riskForRules(proposal.toolName, risk));
  const decision = outcome.decision === 'approve' || outcome.decision === 'reject' ? outcome.decision : undefined;
  const { target, toolName } = proposal;
  const redefined = decision === 'approve' && target !== undefined && toolName !== undefined && toolChanged?.(target, toolName) === true;
  return { outcome, decision, redefined };
}

export interface RuleSupervisorOptions extends Omit<MEWParticipantOptions, 'autoDiscovery'> {
  /** The space's current rules (read again on `reload`). */
  rules(): ApprovalRule[];
  /** What happens to proposals nobody decides in time, by risk level (config `automation.timeouts`). */
  timeouts?: TimeoutPolicy;
  /** Told of every decision a rule made or would have made (shadow), for logs and tests. */
  onDecision?(proposal: Proposal, outcome: RuleOutcome): void;
  /** Told what each rule did (a decision, a shadow decision, a shadow approval a human then rejected): the rules' stats. */
  onRuleEvent?(rule: ApprovalRule, event: RuleEventType, proposal: Proposal): void;
  /** A participant left the space: the rules bound to its session end. */
  onParticipantLeft?(participant: string): void;
  /** Whether a participant's tool was redefined since it was pinned: no rule approves a call of it (lib/tool-pins). */
  toolChanged?(participant: string, tool: string): boolean;
  log?(line: string): void;
}

const refOf = (rule: ApprovalRule): RuleRef => ({ id: rule.id, version: rule.version, name: rule.name });
const describeRule = (rule: ApprovalRule) => `rule "${rule.name}" (v${rule.version})`;

/**
 * The participant that applies a space's approval rules, running inside the server but joined through the gateway
 * like anyone (its capabilities are the config's: fulfilling and rejecting proposals, nothing else). Each pending
 * proposal is decided the moment it arrives: fulfilled when an approve rule wins, rejected with the rule's reason
 * (and a chat naming the rule) when a reject rule wins, left to humans otherwise; each decision names its rule
 * (`withRuleRef`), so cards and the audit say which rule and version decided. A tool's risk is read from the
 * target's `tools/list` by the one tool-risk function (`toolRisk`: MGP `security`, else MCP annotations, as the
 * bridge and the control room read it); when the tool declares none or cannot be listed it counts as dangerous
 * (`riskForRules`), so no rule approves it unseen. A proposal left to humans gets the timeout of its `ask` rule or
 * of its risk level (`default` when undeclared): rejected (`timeout`) or escalated (a chat correlated to it that
 * marks it urgent) when nobody decides in time, counted from the proposal's own time; an escalation comes early
 * enough to act on before the proposer's deadline (`timeoutSchedule`).
 *
 * @example
 * const supervisor = new RuleSupervisor({ gateway, space: 'demo', token, rules: () => records.list() });
 * await supervisor.connect();
 */
export class RuleSupervisor {
  readonly participant: MEWParticipant;
  private engine: RuleEngine;
  /** Shadow approve rules per proposal: if a human rejects it, those rules are flagged. */
  private readonly shadowApprovals = new BoundedMap<string, ApprovalRule[]>(REMEMBERED_PROPOSALS);
  private readonly timers = new Map<string, ReturnType<typeof setTimeout>>();
  /** Proposals being decided now: one decision at a time per proposal, so a reload never sends a second. */
  private readonly deciding = new Set<string>();
  /**
   * Set by the first welcome. Until then proposals are only recorded (a catch-up from history replays them, and
   * what became of them arrives later in the same catch-up); the welcome then decides what is still pending.
   */
  private joined = false;

  constructor(private readonly options: RuleSupervisorOptions) {
    const { rules, timeouts: _timeouts, onDecision: _onDecision, onRuleEvent: _onRuleEvent, onParticipantLeft, log: _log, ...participant } = options;
    this.engine = new RuleEngine(rules());
    // No deadline of the model's own: a proposal stays pending for the supervisor until its proposer's deadline, so
    // a policy's timeout longer than the model's default still acts.
    this.participant = new MEWParticipant({ ...participant, autoDiscovery: false, spaceModel: { proposalTimeoutMs: null, ...participant.spaceModel } });
    this.participant.on('proposal', (proposal) => {
      if (proposal.state !== 'pending') this.settled(proposal);
      else if (this.joined) void this.decide(proposal);
    });
    this.participant.client.on('welcome', () => {
      if (this.joined) return;
      this.joined = true;
      this.reload();
    });
    if (onParticipantLeft) this.participant.on('participant-leave', ({ id }) => onParticipantLeft(id));
  }

  connect(): Promise<void> {
    return this.participant.connect();
  }

  disconnect(): void {
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    this.participant.disconnect();
  }

  /** The rules changed: compile them again (hourly quotas start afresh) and apply them to what is pending now. */
  reload(): void {
    this.engine = new RuleEngine(this.options.rules());
    for (const proposal of this.participant.proposals.pending()) void this.decide(proposal);
  }

  private async decide(proposal: Proposal): Promise<void> {
    if (this.deciding.has(proposal.id)) return;
    this.deciding.add(proposal.id);
    try {
      await this.decideOnce(proposal);
    } finally {
      this.deciding.delete(proposal.id);
    }
  }

  private async decideOnce(proposal: Proposal): Promise<void> {
    // A tool call's risk decides whether an approve rule may act (and which timeout applies); other methods carry none.
    const risk = proposal.toolName === undefined ? undefined : await this.riskOf(proposal);
    // The rules as they are now (a reload while the risk was read counts); a tool redefined since it was trusted (a
    // "rug pull") is a human's call, whatever the rules say.
    const { outcome, decision, redefined } = ruleVerdict(this.engine, proposal, risk, this.options.toolChanged);
    const { rule } = outcome;
    if (redefined && rule)
      this.options.log?.(
        `${describeRule(rule)} would approve ${proposal.id}, but ${proposal.target}'s ${proposal.toolName} changed since it was pinned: left to a human`,
      );
    const decided = !redefined && rule !== undefined && decision !== undefined && this.participant.proposals.get(proposal.id)?.state === 'pending';
    // The decision goes out first; what the rules did is recorded after it, off its path.
    const sent = decided ? this.send(proposal, rule, decision) : undefined;
    this.options.onDecision?.(proposal, outcome);
    for (const shadow of outcome.shadow) this.options.onRuleEvent?.(shadow.rule, 'shadow_hit', proposal);
    const shadowApprovals = outcome.shadow.filter((s) => s.decision === 'approve').map((s) => s.rule);
    if (shadowApprovals.length > 0) this.shadowApprovals.set(proposal.id, shadowApprovals);
    if (rule && (decided || outcome.decision === 'ask')) this.options.onRuleEvent?.(rule, 'hit', proposal);
    if (!decided) {
      if (this.participant.proposals.get(proposal.id)?.state === 'pending') this.startTimeout(proposal, rule?.timeout ?? this.timeoutFor(risk));
      return;
    }
    try {
      await sent;
    } catch (error) {
      this.options.log?.(`${describeRule(rule)} could not ${decision} ${proposal.id}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  /** Approves (fulfils) or rejects a proposal in a rule's name; resolves when the gateway took it (a fulfilment: its result). */
  private send(proposal: Proposal, rule: ApprovalRule, decision: 'approve' | 'reject'): Promise<unknown> {
    try {
      if (decision === 'approve') {
        const call = { method: proposal.method, params: withRuleRef(proposal.params, refOf(rule)) };
        return this.participant.proposals.fulfil(proposal.id, { call }).outcome;
      }
      const why = `Rejected by ${describeRule(rule)}${rule.reason ? `: ${rule.reason}` : ''}.`;
      return this.participant.proposals.reject(proposal.id, rule.reason ?? 'policy', why, { rule: refOf(rule) }).outcome;
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** A proposal left pending: its timeout stops; a human's rejection flags the shadow rules that would have approved it. */
  private settled(proposal: Proposal): void {
    const timer = this.timers.get(proposal.id);
    if (timer) clearTimeout(timer);
    this.timers.delete(proposal.id);
    const shadow = this.shadowApprovals.get(proposal.id);
    if (!shadow || proposal.state !== 'rejected') return;
    this.shadowApprovals.delete(proposal.id);
    const me = this.participant.id;
    if (!proposal.rejections.some((r) => r.by !== me)) return;
    for (const rule of shadow) this.options.onRuleEvent?.(rule, 'shadow_conflict', proposal);
  }

  private timeoutFor(risk: ToolSecurity | undefined): ProposalTimeout | undefined {
    const policy = this.options.timeouts;
    if (!policy) return undefined;
    const level = risk?.risk_level;
    return (level === 'safe' || level === 'moderate' || level === 'dangerous' ? policy[level] : undefined) ?? policy.default;
  }

  private startTimeout(proposal: Proposal, timeout: ProposalTimeout | undefined): void {
    if (!timeout || timeout.action === 'none' || this.timers.has(proposal.id)) return;
    const { at, waitedSeconds } = timeoutSchedule(proposal, timeout);
    const timer = setTimeout(
      () => {
        this.timers.delete(proposal.id);
        if (this.participant.proposals.get(proposal.id)?.state !== 'pending') return;
        const waited = `No one decided within ${waitedSeconds} s`;
        try {
          if (timeout.action === 'reject') {
            this.participant.proposals.reject(proposal.id, 'timeout', `${waited}: rejected.`).outcome.catch(() => undefined);
          } else {
            const left =
              proposal.deadlineSource === 'proposer' && proposal.deadline !== undefined ? Math.round((proposal.deadline - Date.now()) / 1000) : undefined;
            const text = `${waited}: urgent, ${proposal.proposer} is waiting for ${proposal.toolName ?? proposal.method}${left !== undefined ? ` and withdraws it in ${left} s` : ''}.`;
            this.participant.send({ kind: 'chat', correlation_id: [proposal.id], payload: { text, escalation: { waited_seconds: waitedSeconds } } });
          }
        } catch (error) {
          this.options.log?.(`could not ${timeout.action} ${proposal.id} after its timeout: ${error instanceof Error ? error.message : String(error)}`);
        }
      },
      Math.max(0, at - Date.now()),
    );
    timer.unref?.();
    this.timers.set(proposal.id, timer);
  }

  /**
   * The target tool's risk, as the proposal shows it or from the target's `tools/list` (discovered once, then
   * cached), both read by `toolRisk`; undefined when the tool declares none or cannot be listed.
   */
  private async riskOf(proposal: Proposal): Promise<ToolSecurity | undefined> {
    const target = proposal.targets[0];
    if (proposal.risk) return proposal.risk;
    if (!target) return undefined;
    try {
      const tools = await this.participant.discovery.discover(target);
      return tools.find((tool) => tool.name === proposal.toolName)?.security;
    } catch {
      return undefined;
    }
  }
}
