import { escalationOf, GATEWAY_ID, ruleRefOfParams, ruleRefOfReject, withoutRuleRef, type ApprovalEntry, type Envelope, type RuleRef } from '../../protocol';
import { trimMapAmortized, writable } from './collection-utils';
import type { ReduceContext } from './reduce-context';
import { correlationIds, isRecord, num, parseTime, str, type JsonObject, type StoreEnvelope } from './store-envelope';
import { findToolSecurity, type ToolSecurity, type ToolsState } from './tools-slice';

/**
 * Where a proposal stands, from the envelopes seen only (DESIGN.md, "The control room"):
 * `pending` → `fulfilled` (an `mcp/request` correlating it) → `completed` / `failed` (the response to the
 * fulfilment), or `rejected` (`mcp/reject`), `withdrawn` (`mcp/withdraw` by its proposer), `expired` (our own
 * deadline passed at tick time; never shown as rejected). A fulfilment seen after a reject, withdraw or expiry
 * still moves the proposal on: what ran, ran.
 */
export type ProposalStatus = 'pending' | 'fulfilled' | 'completed' | 'failed' | 'rejected' | 'withdrawn' | 'expired';

/** Every proposal status. */
export const PROPOSAL_STATUSES = [
  'pending',
  'fulfilled',
  'completed',
  'failed',
  'rejected',
  'withdrawn',
  'expired',
] as const satisfies readonly ProposalStatus[];

/** An `mcp/request` that carried out the proposal (spec §3.2.1). */
export interface Fulfilment {
  /** The request envelope (its response correlates to it). */
  id: string;
  by: string;
  at: number;
  method?: string;
  params?: unknown;
  /** The fulfiller changed the method or params (edit-then-approve); a rule's name in `_meta` is no change. */
  edited: boolean;
  /** The approval rule that decided, as the fulfilment names it. */
  rule?: RuleRef;
}

/** The `mcp/response` to the fulfilment. */
export interface ProposalOutcome {
  responseId: string;
  from: string;
  at: number;
  result?: unknown;
  error?: { code?: number; message?: string; data?: unknown };
  /** `error` present or `result.isError === true`. */
  isError: boolean;
}

/** An `mcp/reject` (spec §3.3.2); several participants may reject the same proposal. */
export interface Rejection {
  id: string;
  by: string;
  at: number;
  /** Reason code, e.g. `unsafe`, `policy` (spec §3.3.3; unknown codes are kept as given). */
  reason?: string;
  /** The approval rule that decided, as the reject names it. */
  rule?: RuleRef;
  /** The first `chat` whose `correlation_id` names this reject. */
  explanation?: { id: string; from: string; text: string; at: number };
}

/**
 * The approvals the gateway counted for a proposal whose tool needs several (space config `approvals`), from its
 * latest `system/approval`: "1 of 2: alice". Approvals of different calls (edit-then-approve) do not add up; this is
 * the call approved last.
 */
export interface ProposalApprovals {
  /** Distinct participants (never the proposer) that must approve the same call. */
  required: number;
  /** Who approved it so far, oldest first, one entry per participant. */
  by: readonly ApprovalEntry[];
  /** The quorum was reached: the last approval was routed to the tool. */
  complete: boolean;
  /** The approved call differs from the proposal's own (edit-then-approve), when the gateway could tell. */
  edited?: boolean;
  /** Approving requests the gateway held back (they ran nothing): neither fulfils the proposal. */
  held: readonly string[];
}

/**
 * Whether `participant` already approved the proposal's own call (its tool needs several approvals): approving it
 * again would not count (the gateway counts each participant once), so the SDK refuses it and the card says so.
 */
export function hasApproved(p: Pick<Proposal, 'approvals'>, participant: string | undefined): boolean {
  return participant !== undefined && p.approvals?.edited !== true && p.approvals?.by.some((a) => a.by === participant) === true;
}

/** The proposer's `mcp/withdraw` (spec §3.3.1). */
export interface Withdrawal {
  id: string;
  at: number;
  reason?: string;
}

/** One `mcp/proposal`, never replaced by a later one. */
export interface Proposal {
  id: string;
  /** Ingestion order (tie-break for equal timestamps). */
  seq: number;
  proposer: string;
  /** First of `to`: the participant whose tool would run. */
  target?: string;
  targets: readonly string[];
  method: string;
  /** `params.name` (for `tools/call`). */
  toolName?: string;
  /** `params.arguments`. */
  arguments?: unknown;
  params?: unknown;
  context?: string;
  at: number;
  /**
   * The proposer's own timeout in ms: `payload.timeout_ms`, or `payload.expires_at` (RFC 3339 or epoch ms) minus
   * the proposal's `ts`; the same fields are also read from `payload.params._meta`.
   */
  timeoutMs?: number;
  /** When it expires if still pending (epoch ms): the proposer's deadline, else ours (`proposalTimeoutMs`). */
  deadline?: number;
  deadlineSource?: 'proposer' | 'default';
  /** The target tool's security metadata, from its `tools/list` (refreshed when that arrives later). */
  risk?: ToolSecurity;
  state: ProposalStatus;
  /** When our deadline expired it (kept if it moves on afterwards). */
  expiredAt?: number;
  /** The first fulfilment. */
  fulfilment?: Fulfilment;
  /** Every fulfilment seen (duplicates happen when two approvers act at once). */
  fulfilments: readonly Fulfilment[];
  outcome?: ProposalOutcome;
  rejections: readonly Rejection[];
  withdrawal?: Withdrawal;
  /** Nobody decided it in time and it was marked urgent (an escalation chat correlated to it). */
  escalation?: { id: string; by: string; at: number; waitedSeconds: number; text: string };
  /** Its tool needs several approvals: those the gateway counted (`system/approval`). */
  approvals?: ProposalApprovals;
  updatedAt: number;
}

/** Proposals by id (insertion order), plus the correlation indexes that move them along. */
export interface ProposalsState {
  byId: ReadonlyMap<string, Proposal>;
  /** Fulfilment request id → proposal ids it fulfils. */
  byFulfilment: ReadonlyMap<string, readonly string[]>;
  /** Reject envelope id → proposal id (for follow-up explanations). */
  byRejection: ReadonlyMap<string, string>;
  /** Incremented on every change. */
  version: number;
  /** Internal: size at which the next trim to `proposalCap` is attempted (see `trimMapAmortized`). */
  trimFloor: number;
  /**
   * No pending proposal expires before this (epoch ms; Infinity when none can): a tick before it has nothing to do,
   * and a participant sets its one expiry timer by it. Lower than needed once a proposal settles early: the next
   * tick at that time finds nothing due and moves it on.
   */
  nextExpiry: number;
}

/** A fresh proposals slice. */
export function initialProposals(): ProposalsState {
  return { byId: new Map(), byFulfilment: new Map(), byRejection: new Map(), version: 0, trimFloor: 0, nextExpiry: Infinity };
}

const EXECUTED: ReadonlySet<ProposalStatus> = new Set(['fulfilled', 'completed', 'failed']);

function proposerTimeout(payload: JsonObject, at: number): { timeoutMs?: number; deadline?: number } {
  const meta = isRecord(payload.params) && isRecord(payload.params._meta) ? payload.params._meta : undefined;
  for (const source of [payload, meta]) {
    if (!source) continue;
    const timeoutMs = num(source.timeout_ms);
    if (timeoutMs !== undefined && timeoutMs > 0) return { timeoutMs, deadline: at + timeoutMs };
    const expiresAt = parseTime(source.expires_at);
    if (expiresAt !== undefined) return { timeoutMs: expiresAt - at, deadline: expiresAt };
  }
  return {};
}

function newProposal(envelope: Envelope<'mcp/proposal'>, ctx: ReduceContext, tools: ToolsState): Proposal {
  const { payload } = envelope;
  // JSON-RPC params may be positional (an array): then there is no tool name or arguments to read.
  const params = isRecord(payload.params) ? payload.params : undefined;
  const targets = envelope.to ?? [];
  const toolName = str(params?.name);
  const own = proposerTimeout(payload, ctx.at);
  const fallback = ctx.config.proposalTimeoutMs;
  const deadline = own.deadline ?? (fallback === null ? undefined : ctx.at + fallback);
  return {
    id: envelope.id,
    seq: ctx.seq,
    proposer: envelope.from,
    target: targets[0],
    targets,
    method: payload.method,
    toolName,
    arguments: params?.arguments,
    params: payload.params,
    context: envelope.context,
    at: ctx.at,
    timeoutMs: own.timeoutMs,
    deadline,
    deadlineSource: own.deadline !== undefined ? 'proposer' : deadline !== undefined ? 'default' : undefined,
    risk: findToolSecurity(tools, targets[0], toolName),
    state: 'pending',
    fulfilments: [],
    rejections: [],
    updatedAt: ctx.at,
  };
}

/** Applies proposals and every envelope that moves one along. `tools` resolves a new proposal's risk. */
export function reduceProposals(state: ProposalsState, envelope: StoreEnvelope, ctx: ReduceContext, tools: ToolsState): ProposalsState {
  let changed: boolean;
  switch (envelope.kind) {
    case 'mcp/proposal': {
      if (state.byId.has(envelope.id)) return state; // never replaced
      const trimFloor = addProposal(state, envelope, ctx, tools);
      const nextExpiry = Math.min(state.nextExpiry, state.byId.get(envelope.id)?.deadline ?? Infinity);
      return { ...state, version: state.version + 1, trimFloor, nextExpiry };
    }
    case 'mcp/request':
      changed = applyFulfilment(state, envelope, ctx);
      break;
    case 'mcp/response':
      changed = applyResponse(state, envelope, ctx);
      break;
    case 'mcp/reject':
      changed = applyReject(state, envelope, ctx);
      break;
    case 'mcp/withdraw':
      changed = applyWithdraw(state, envelope, ctx);
      break;
    case 'chat':
      changed = escalationOf(envelope.payload) ? applyEscalation(state, envelope, ctx) : applyExplanation(state, envelope, ctx);
      break;
    case 'system/approval':
      changed = applyApproval(state, envelope, ctx);
      break;
    default:
      changed = false;
  }
  return changed ? { ...state, version: state.version + 1 } : state;
}

// Adds the proposal and enforces the cap; returns the next trim floor.
function addProposal(state: ProposalsState, envelope: Envelope<'mcp/proposal'>, ctx: ReduceContext, tools: ToolsState): number {
  writable(state.byId).set(envelope.id, newProposal(envelope, ctx, tools));
  // Pending proposals are never dropped; settled ones go oldest first, with their index entries.
  const { removed, floor } = trimMapAmortized(writable(state.byId), ctx.config.proposalCap, (p) => p.state === 'pending', state.trimFloor);
  if (removed.length > 0) {
    const dropped = new Set(removed.map(([id]) => id));
    for (const [requestId, ids] of state.byFulfilment) {
      if (ids.every((id) => !state.byId.has(id))) writable(state.byFulfilment).delete(requestId);
    }
    for (const [rejectId, id] of state.byRejection) if (dropped.has(id)) writable(state.byRejection).delete(rejectId);
  }
  return floor;
}

function proposalsNamed(state: ProposalsState, envelope: StoreEnvelope): Proposal[] {
  const out: Proposal[] = [];
  for (const id of correlationIds(envelope)) {
    const p = state.byId.get(id);
    if (p) out.push(p);
  }
  return out;
}

function applyFulfilment(state: ProposalsState, envelope: Envelope<'mcp/request'>, ctx: ReduceContext): boolean {
  // An approval the gateway held (my own echo: nobody else sees it) ran nothing: the proposal stays as it was.
  const named = proposalsNamed(state, envelope).filter((p) => !p.approvals?.held.includes(envelope.id));
  if (named.length === 0) return false;
  const { payload } = envelope;
  const method = payload.method;
  const rule = ruleRefOfParams(payload.params);
  for (const p of named) {
    const fulfilment: Fulfilment = {
      id: envelope.id,
      by: envelope.from,
      at: ctx.at,
      method,
      params: payload.params,
      edited: method !== p.method || JSON.stringify(withoutRuleRef(payload.params)) !== JSON.stringify(p.params),
      ...(rule && { rule }),
    };
    const first = p.fulfilment === undefined;
    writable(state.byId).set(p.id, {
      ...p,
      fulfilment: p.fulfilment ?? fulfilment,
      fulfilments: [...p.fulfilments, fulfilment],
      state: EXECUTED.has(p.state) ? p.state : 'fulfilled',
      updatedAt: first ? ctx.at : p.updatedAt,
    });
  }
  writable(state.byFulfilment).set(
    envelope.id,
    named.map((p) => p.id),
  );
  return true;
}

function applyResponse(state: ProposalsState, envelope: Envelope<'mcp/response'>, ctx: ReduceContext): boolean {
  const ids = correlationIds(envelope).flatMap((id) => state.byFulfilment.get(id) ?? []);
  if (ids.length === 0) return false;
  const { payload } = envelope;
  const error = payload.error && { code: payload.error.code, message: payload.error.message, data: payload.error.data };
  const isError = error !== undefined || (isRecord(payload.result) && payload.result.isError === true);
  let changed = false;
  for (const id of ids) {
    const p = state.byId.get(id);
    if (!p || p.outcome) continue; // the first outcome stands (a duplicate fulfilment's response changes nothing)
    const outcome: ProposalOutcome = { responseId: envelope.id, from: envelope.from, at: ctx.at, result: payload.result, error, isError };
    writable(state.byId).set(id, { ...p, outcome, state: isError ? 'failed' : 'completed', updatedAt: ctx.at });
    changed = true;
  }
  return changed;
}

function applyReject(state: ProposalsState, envelope: Envelope<'mcp/reject'>, ctx: ReduceContext): boolean {
  const named = proposalsNamed(state, envelope);
  if (named.length === 0) return false;
  const rule = ruleRefOfReject(envelope.payload);
  const rejection: Rejection = { id: envelope.id, by: envelope.from, at: ctx.at, reason: envelope.payload.reason, ...(rule && { rule }) };
  for (const p of named) {
    // A reject after the proposal ran, or after it was withdrawn, is recorded but does not undo that.
    const moves = p.state === 'pending' || p.state === 'expired';
    writable(state.byId).set(p.id, {
      ...p,
      rejections: [...p.rejections, rejection],
      state: moves ? 'rejected' : p.state,
      updatedAt: moves ? ctx.at : p.updatedAt,
    });
    writable(state.byRejection).set(envelope.id, p.id);
  }
  return true;
}

function applyWithdraw(state: ProposalsState, envelope: Envelope<'mcp/withdraw'>, ctx: ReduceContext): boolean {
  // Spec §3.3.1: only the original proposer can withdraw; anyone else's withdraw is ignored.
  const named = proposalsNamed(state, envelope).filter((p) => p.proposer === envelope.from && !p.withdrawal);
  if (named.length === 0) return false;
  const withdrawal: Withdrawal = { id: envelope.id, at: ctx.at, reason: envelope.payload?.reason };
  for (const p of named) {
    const moves = !EXECUTED.has(p.state);
    writable(state.byId).set(p.id, { ...p, withdrawal, state: moves ? 'withdrawn' : p.state, updatedAt: moves ? ctx.at : p.updatedAt });
  }
  return true;
}

function applyEscalation(state: ProposalsState, envelope: Envelope<'chat'>, ctx: ReduceContext): boolean {
  const { waited_seconds: waitedSeconds } = escalationOf(envelope.payload)!;
  let changed = false;
  for (const p of proposalsNamed(state, envelope)) {
    if (p.state !== 'pending' || p.escalation) continue;
    const escalation = { id: envelope.id, by: envelope.from, at: ctx.at, waitedSeconds, text: envelope.payload.text };
    writable(state.byId).set(p.id, { ...p, escalation, updatedAt: ctx.at });
    changed = true;
  }
  return changed;
}

/**
 * A `system/approval` from the gateway: the proposal's approvals so far. One short of the quorum says its request
 * was held, which therefore fulfils nothing (the gateway announces it before echoing the request to its sender; a
 * fulfilment already applied from it is taken back all the same).
 */
function applyApproval(state: ProposalsState, envelope: Envelope<'system/approval'>, ctx: ReduceContext): boolean {
  if (envelope.from !== GATEWAY_ID) return false;
  const { proposal_id, request_id, required, approvals, complete, edited } = envelope.payload;
  const p = state.byId.get(proposal_id);
  if (!p) return false;
  const held = complete ? (p.approvals?.held ?? []) : [...(p.approvals?.held ?? []).filter((id) => id !== request_id), request_id];
  let next: Proposal = { ...p, approvals: { required, by: approvals, complete, ...(edited !== undefined && { edited }), held }, updatedAt: ctx.at };
  if (!complete && p.fulfilments.some((f) => f.id === request_id)) {
    const fulfilments = p.fulfilments.filter((f) => f.id !== request_id);
    const ran = p.state !== 'fulfilled' || fulfilments.length > 0;
    next = { ...next, fulfilments, fulfilment: fulfilments[0], state: ran ? p.state : 'pending' };
    writable(state.byFulfilment).delete(request_id);
  }
  writable(state.byId).set(p.id, next);
  return true;
}

function applyExplanation(state: ProposalsState, envelope: Envelope<'chat'>, ctx: ReduceContext): boolean {
  const { text } = envelope.payload;
  let changed = false;
  for (const rejectId of correlationIds(envelope)) {
    const proposalId = state.byRejection.get(rejectId);
    const p = proposalId !== undefined ? state.byId.get(proposalId) : undefined;
    if (!p) continue;
    const rejections = p.rejections.map((r) =>
      r.id === rejectId && !r.explanation ? { ...r, explanation: { id: envelope.id, from: envelope.from, text, at: ctx.at } } : r,
    );
    writable(state.byId).set(p.id, { ...p, rejections });
    changed = true;
  }
  return changed;
}

const NONE_EXPIRED: readonly Proposal[] = [];

/**
 * Expires pending proposals whose deadline has passed at `now`: the next state (the same when none expired) and
 * the proposals that expired. O(1) before `nextExpiry`, so ticking every second costs nothing while none is due.
 */
export function tickProposals(state: ProposalsState, now: number): { state: ProposalsState; expired: readonly Proposal[] } {
  if (now < state.nextExpiry) return { state, expired: NONE_EXPIRED };
  const expired: Proposal[] = [];
  let nextExpiry = Infinity;
  for (const p of state.byId.values()) {
    if (p.state !== 'pending' || p.deadline === undefined) continue;
    if (p.deadline > now) {
      nextExpiry = Math.min(nextExpiry, p.deadline);
      continue;
    }
    const after: Proposal = { ...p, state: 'expired', expiredAt: now, updatedAt: now };
    writable(state.byId).set(p.id, after);
    expired.push(after);
  }
  const version = expired.length > 0 ? state.version + 1 : state.version;
  return { state: { ...state, version, nextExpiry }, expired };
}

/** Re-resolves every proposal's risk after a participant's tools changed; same state when none changed. */
export function refreshProposalRisk(state: ProposalsState, tools: ToolsState): ProposalsState {
  let changed = false;
  for (const p of state.byId.values()) {
    const risk = findToolSecurity(tools, p.target, p.toolName);
    if (risk !== p.risk) {
      writable(state.byId).set(p.id, { ...p, risk });
      changed = true;
    }
  }
  return changed ? { ...state, version: state.version + 1 } : state;
}
