import { budgetUsage, describeSpend, limitsSomething, sameLimits, spendOf, worseState, type BudgetSpend } from '../budgets/budget';
import { BUDGET_PAUSE_REASON, type BudgetLimits, type BudgetReport, type Envelope } from '../protocol';
import { pauseParticipants } from './control-handlers';
import { GATEWAY_ID } from './gateway-options';
import type { Participant } from './participant';
import type { SpaceStateData } from './persistence/space-records';
import type { AuditEntry, Space } from './space';

/** The budget in force for a participant, and where it comes from. */
interface BudgetInForce {
  limits: BudgetLimits;
  source: 'config' | 'runtime';
  setBy: string;
  setAt?: string;
}

type Alerts = { warned_at?: string; exceeded_at?: string };

/**
 * The token and money budgets of a space's participants, enforced by the gateway: each `participant/status` of a
 * participant with a budget updates its spend; crossing 80 % is audited once (`BUDGET_WARNING`), reaching 100 %
 * pauses it as `participant/pause` would (by the gateway, no timeout), announced to everyone, then asks it to compact
 * (`BUDGET_EXCEEDED`). Each alert happens once per budget setting, remembered across restarts, so a paused
 * participant's own statuses (which stay allowed) cannot pause it again and again.
 */
export class SpaceBudgets {
  private readonly configured = new Map<string, BudgetLimits>();
  /** Each participant's latest status payload: spend is computed from it with the price in force when asked. */
  private readonly reported = new Map<string, Readonly<Record<string, unknown>>>();

  constructor(private readonly space: Space) {}

  /** The config's budget of a participant (a price alone only prices a budget set later). */
  configure(participantId: string, limits: BudgetLimits): void {
    this.configured.set(participantId, limits);
  }

  /** Called for every accepted `participant/status`: the one place spend is learnt. */
  observe(participant: Participant, status: Readonly<Record<string, unknown>>): void {
    this.reported.set(participant.id, status);
    const budget = this.inForce(participant.id);
    if (budget) this.enforce(participant, budget);
  }

  /** The budgets in force, one per participant that has one. */
  list(): BudgetReport[] {
    return [...this.space.participants.keys()].flatMap((id) => this.report(id) ?? []);
  }

  report(participantId: string): BudgetReport | undefined {
    const budget = this.inForce(participantId);
    if (!budget) return undefined;
    const spend = this.spendOf(participantId, budget.limits);
    const alerts = this.alertsOf(participantId, budget.limits);
    const reached = alerts.exceeded_at ? 'exceeded' : alerts.warned_at ? 'warning' : 'ok';
    return {
      participant: participantId,
      ...budget.limits,
      spent_tokens: spend?.tokens ?? 0,
      ...(spend?.usd !== undefined && { spent_usd: spend.usd }),
      state: worseState(reached, (spend && budgetUsage(budget.limits, spend)?.state) ?? 'ok'),
      ...alerts,
      set_by: budget.setBy,
      ...(budget.setAt !== undefined && { set_at: budget.setAt }),
      source: budget.source,
    };
  }

  /** An operator's budget, replacing the config's; its alerts start afresh and the spend known so far counts at once. */
  set(participant: Participant, limits: BudgetLimits, by: string): void {
    const previous = this.inForce(participant.id)?.limits;
    this.space.commit(
      (d) => void (d.budgets[participant.id] = { runtime: { limits, by, at: new Date().toISOString() } }),
      () => ({ type: 'BUDGET_SET', actor: by, subject: participant.id, details: { ...audited(limits), ...(previous && { previous: audited(previous) }) } }),
    );
    this.enforceInForce(participant);
  }

  /** Back to the config's budget (or none); false when there was no run-time budget to clear. */
  clear(participant: Participant, by: string): boolean {
    const runtime = this.space.state.budgets[participant.id]?.runtime;
    if (!runtime) return false;
    this.space.commit(
      (d) => void delete d.budgets[participant.id],
      () => ({ type: 'BUDGET_CLEARED', actor: by, subject: participant.id, details: { previous: audited(runtime.limits) } }),
    );
    this.enforceInForce(participant);
    return true;
  }

  private enforceInForce(participant: Participant): void {
    const budget = this.inForce(participant.id);
    if (budget) this.enforce(participant, budget);
  }

  private inForce(participantId: string): BudgetInForce | undefined {
    const config = this.configured.get(participantId);
    const runtime = this.space.state.budgets[participantId]?.runtime;
    if (runtime) {
      const price = runtime.limits.price_per_1k_tokens_usd ?? config?.price_per_1k_tokens_usd;
      const limits = { ...runtime.limits, ...(price !== undefined && { price_per_1k_tokens_usd: price }) };
      return { limits, source: 'runtime', setBy: runtime.by, setAt: runtime.at };
    }
    return limitsSomething(config) ? { limits: config, source: 'config', setBy: 'config' } : undefined;
  }

  private spendOf(participantId: string, limits: BudgetLimits): BudgetSpend | undefined {
    const status = this.reported.get(participantId);
    return status && spendOf(status, limits.price_per_1k_tokens_usd);
  }

  /** The alerts raised under these limits (none when they were raised under another setting). */
  private alertsOf(participantId: string, limits: BudgetLimits): Alerts {
    const alerts = this.space.state.budgets[participantId]?.alerts;
    if (!alerts || !sameLimits(alerts.limits, limits)) return {};
    return { ...(alerts.warned_at && { warned_at: alerts.warned_at }), ...(alerts.exceeded_at && { exceeded_at: alerts.exceeded_at }) };
  }

  private enforce(participant: Participant, { limits }: BudgetInForce): void {
    const spend = this.spendOf(participant.id, limits);
    const usage = spend && budgetUsage(limits, spend);
    if (!spend || !usage || usage.state === 'ok') return;
    const alerts = this.alertsOf(participant.id, limits);
    const exceeded = usage.state === 'exceeded';
    if (exceeded ? alerts.exceeded_at : alerts.warned_at) return;

    const now = new Date().toISOString();
    const id = participant.id;
    const details = { ...audited(limits), spent_tokens: spend.tokens, ...(spend.usd !== undefined && { spent_usd: spend.usd }), ratio: usage.ratio };
    const warning: AuditEntry[] = alerts.warned_at ? [] : [{ type: 'BUDGET_WARNING', actor: GATEWAY_ID, subject: id, details }];
    const remember = (d: SpaceStateData) => {
      d.budgets[id] = { ...d.budgets[id], alerts: { limits, warned_at: alerts.warned_at ?? now, ...(exceeded && { exceeded_at: now }) } };
    };
    if (!exceeded) return this.space.commit(remember, () => warning);

    const reason = `${BUDGET_PAUSE_REASON}: ${describeSpend(limits, spend, usage.by)}`;
    const pause = this.space.emit('participant/pause', { reason }, { broadcastTo: [id] }).envelope as Envelope;
    pauseParticipants(
      this.space,
      GATEWAY_ID,
      [participant],
      pause.id,
      { reason },
      {
        change: remember,
        audit: () => [...warning, { type: 'BUDGET_EXCEEDED', actor: GATEWAY_ID, subject: id, envelope_id: pause.id, details }],
      },
    );
    this.space.emit('participant/compact', { reason: BUDGET_PAUSE_REASON }, { broadcastTo: [id] });
  }
}

/** Limits as audit details: the log redacts any key named `tokens` (it guards against secrets), so these are named apart. */
function audited({ tokens, usd, price_per_1k_tokens_usd }: BudgetLimits) {
  return { budget_tokens: tokens, budget_usd: usd, price_per_1k_tokens_usd };
}
