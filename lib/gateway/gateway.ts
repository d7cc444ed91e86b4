import { randomUUID } from 'node:crypto';
import {
  GATEWAY_EMITTED_KINDS,
  PROTOCOL_VERSION,
  isPauseExemptKind,
  isReservedKind,
  formatIssues,
  parseEnvelope,
  ruleRefOfParams,
  ruleRefOfReject,
  type Envelope,
  type ErrorCode,
} from '../protocol';
import { violationEventType } from './audit';
import { exceedsJsonDepth, topLevelJsonId } from './json-depth';
import { NO_AUDIT, type AuditSink } from './audit-sink';
import { handlePause, handleResume, handleRoutedControl, handleShutdown } from './control-handlers';
import { resolveLimits, type GatewayLimits } from './gateway-options';
import { GatewayError } from './gateway-error';
import { handleGrant, handleRevoke } from './grant-handlers';
import type { ManagementHandler, ManagementHandlers } from './management';
import { handleInvite, handleKick } from './membership-handlers';
import { handleWithdraw } from './withdraw-handler';
import { trackedProposalOf } from './proposal-tracker';
import type { Connection, Participant } from './participant';
import type { OutboundMessage } from './outbound-message';
import { Space, type AttachOptions } from './space';
import type { SpaceConfig } from './space-config';
import { handleStreamClose, handleStreamRequest, routeStreamFrame } from './stream-handlers';
import type { StreamReplica } from './stream-registry';
import type { HistoryStore } from './history-store';
import { MemoryHistoryStore } from './memory-history-store';
import { GatewayDatabase } from './persistence/gateway-database';
import { SpaceRecords } from './persistence/space-records';
import { TokenIndex } from './token-index';

export interface GatewayOptions {
  spaces: SpaceConfig[];
  /** Where minted tokens and run-time state (grants, invites, kicks, pauses) live. @default an in-memory database */
  database?: GatewayDatabase;
  /** Overrides applied on top of each space's own `limits`. */
  limits?: Partial<GatewayLimits>;
  audit?: AuditSink;
  /** Where numbered history outlives the process. @default a MemoryHistoryStore (history dies with the gateway) */
  history?: HistoryStore;
  /** The WebSocket URL invite acks hand out; set by the server once it listens. */
  connectionUrl?: () => string;
  /** Each space's records. @default records in `database` */
  records?: (spaceId: string, database: GatewayDatabase) => SpaceRecords;
  /** Where each space's open streams are also kept. @default nowhere */
  streams?: (spaceId: string) => StreamReplica;
}

/** A participant's live session: the transport feeds it frames and tells it when the peer is gone. */
export interface Session {
  readonly participant: Participant;
  readonly space: Space;
  /** Runs one inbound frame through the pipeline; refusals go back to the sender as `system/error`. */
  receive(data: Buffer, binary?: boolean): void;
  /** The connection ended: presence leave is broadcast; `close` says how (audited as the reason it left). */
  end(close?: CloseInfo): void;
}

/** Where a presented token came from, for the record of one that authenticates nobody. */
export interface AuthAttempt {
  via: 'websocket' | 'http';
  /** The peer's address, as the socket reports it. */
  address?: string;
}

/** How a connection ended: the close code and reason, as the side that closed it gave them. */
export interface CloseInfo {
  code: number;
  reason: string;
}

/** The kinds of a proposal's audit trail; every other kind skips the trail at once. */
const PROPOSAL_TRAIL_KINDS: ReadonlySet<string> = new Set(['mcp/proposal', 'mcp/request', 'mcp/reject', 'mcp/withdraw', 'mcp/response']);

/** What the trail reads of MCP payloads (loose: they are relayed as sent). */
/** A reject's explanation is audited up to this many characters. */
const MAX_AUDITED_EXPLANATION = 2_000;

interface McpTrailPayload {
  method?: unknown;
  params?: { name?: unknown };
  reason?: unknown;
  explanation?: unknown;
  result?: unknown;
  error?: { code?: unknown; message?: unknown };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** What became of one submitted frame. */
export type SubmitResult =
  | {
      ok: true;
      envelope?: Envelope;
      /**
       * The frame repeated an envelope this participant already sent (same id, still retained): nothing happened
       * again; this is the original as routed, for the sender's connection alone (its echo, which it missed).
       */
      duplicate?: OutboundMessage;
    }
  | { ok: false; error: GatewayError /** The refused envelope's id, when it had one (for `correlation_id`). */; offendingId?: string };

/** Kinds the gateway acts on besides routing them. */
const MANAGEMENT: ManagementHandlers = {
  'capability/grant': handleGrant,
  'capability/revoke': handleRevoke,
  'space/invite': handleInvite,
  'space/kick': handleKick,
  'participant/pause': handlePause,
  'participant/resume': handleResume,
  'participant/shutdown': handleShutdown,
  'participant/request-status': handleRoutedControl,
  'participant/forget': handleRoutedControl,
  'participant/compact': handleRoutedControl,
  'participant/clear': handleRoutedControl,
  'participant/restart': handleRoutedControl,
  'mcp/withdraw': handleWithdraw,
  'stream/request': handleStreamRequest,
  'stream/close': handleStreamClose,
};

const HASH = 0x23; // '#': a stream data frame rather than an envelope

/**
 * Refusals that are security decisions, and so audited. Malformed frames and rate limiting are hygiene:
 * auditing them would let one noisy client flood the log.
 */
const AUDITED_REFUSALS: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  'identity_mismatch',
  'reserved_kind',
  'capability_violation',
  'grant_exceeds_own_capabilities',
  'participant_paused',
  'participant_shutdown',
  'unauthorized_stream_write',
  'not_proposer',
]);

/**
 * The transport-agnostic gateway: spaces, authentication and the enforcement pipeline.
 * Transports (WebSocket, HTTP) only move bytes; every decision is made here, once.
 */
export class Gateway {
  readonly spaces = new Map<string, Space>();
  /** The space used when a client names none (the first configured). */
  readonly defaultSpaceId: string;
  readonly adminTokens = new Map<string, TokenIndex>();

  constructor(options: GatewayOptions) {
    if (options.spaces.length === 0) throw new TypeError('a gateway needs at least one space');
    const history = options.history ?? new MemoryHistoryStore();
    const database = options.database ?? GatewayDatabase.open();
    for (const config of options.spaces) {
      if (this.spaces.has(config.id)) throw new TypeError(`space "${config.id}" is configured twice`);
      const records = options.records?.(config.id, database) ?? new SpaceRecords(database, config.id);
      const space = new Space(config.id, config.name, {
        limits: resolveLimits(config.limits, options.limits),
        records,
        audit: options.audit ?? NO_AUDIT,
        history,
        connectionUrl: () => `${options.connectionUrl?.() ?? 'ws://127.0.0.1/ws'}?space=${encodeURIComponent(config.id)}`,
        streams: options.streams?.(config.id),
      });
      space.supervisor = config.supervisor;
      const kicked = new Set(records.data.kicked);
      for (const pc of config.participants) {
        const tokens = kicked.has(pc.id) ? [] : pc.tokens?.length ? pc.tokens : [records.tokenFor(pc.id)];
        space.addParticipant(pc.id, pc.capabilities, pc.routing, tokens);
        if (pc.budget) space.budgets.configure(pc.id, pc.budget);
        if (pc.id === config.signInAs && tokens[0]) space.signIn = { participantId: pc.id, token: tokens[0] };
      }
      for (const invited of records.data.invited) {
        if (space.participants.has(invited.id)) continue;
        const tokens = kicked.has(invited.id) ? [] : [records.tokenFor(invited.id)];
        space.addParticipant(invited.id, invited.capabilities, 'broadcast', tokens, invited.invitedBy);
      }
      for (const [id, pause] of Object.entries(records.data.paused)) {
        const participant = space.participants.get(id);
        if (!participant) continue;
        participant.paused = pause;
        space.expirePauseLater(participant, pause); // one that lapsed while the gateway was down is lifted now
      }
      for (const grant of records.data.grants) space.grantExpiry.arm(grant);
      const admin = new TokenIndex();
      for (const token of config.adminTokens?.length ? config.adminTokens : [records.adminToken()]) admin.add(token, 'admin');
      this.adminTokens.set(config.id, admin);
      // Last: recalls the approvals of proposals still in the retained history, as the participants now are.
      space.approvals.configure(config.approvals, space.history.toArray());
      this.spaces.set(config.id, space);
    }
    this.defaultSpaceId = options.spaces[0].id;
  }

  /** The space a client asked for, or the default when it named none. */
  resolveSpace(spaceId?: string | null): Space | undefined {
    return this.spaces.get(spaceId || this.defaultSpaceId);
  }

  /** The participant a bearer token authenticates as in that space, if any. */
  /**
   * The participant a token authenticates. With `attempt` (where a presented token came from), a token that is
   * neither a participant's nor the admin's is a security event: audited, and told to the space's operators.
   */
  authenticate(space: Space, token: string, attempt?: AuthAttempt): Participant | undefined {
    const id = space.tokens.lookup(token);
    const participant = id === undefined ? undefined : space.participants.get(id);
    if (!participant && attempt && !this.isAdmin(space, token)) space.reportAuthFailure(attempt);
    return participant;
  }

  /** Whether the token is the space's admin token (the admin API). */
  isAdmin(space: Space, token: string): boolean {
    return this.adminTokens.get(space.id)?.lookup(token) !== undefined;
  }

  /**
   * Binds an authenticated connection: what it missed since `after` (when given), then its welcome, to it;
   * presence to the others.
   */
  connect(space: Space, participant: Participant, connection: Connection, options: AttachOptions = {}): Session {
    space.attach(participant, connection, options);
    return {
      participant,
      space,
      receive: (data, binary = false) => {
        const result = this.submit(space, participant, data, { binary });
        if (!result.ok) this.answerRefusal(space, participant, result, connection);
        else if (result.duplicate) connection.deliver(result.duplicate);
      },
      end: (close) => space.detach(participant, connection, close),
    };
  }

  /**
   * The one way in for a participant's frame, whatever carried it (WebSocket, HTTP): size → stream frame or
   * JSON → the pipeline → routing. A refusal is audited here when it is a security decision and returned for the
   * transport to answer in its own way (a `system/error` on the socket, an HTTP status with a JSON body).
   */
  submit(space: Space, participant: Participant, data: Buffer, options: { binary?: boolean; streamFrames?: boolean } = {}): SubmitResult {
    const { binary = false, streamFrames = true } = options;
    let value: unknown;
    // A frame refused before its parse (too deep) still names its id, read off the bytes.
    let scannedId: string | undefined;
    try {
      checkFrameSize(data.length, space.limits);
      if (streamFrames && data[0] === HASH) {
        this.checkActive(participant, 'stream/data');
        routeStreamFrame(space, participant, data, binary);
        return { ok: true };
      }
      if (exceedsJsonDepth(data, space.limits.maxJsonDepth)) {
        scannedId = topLevelJsonId(data);
        throw new GatewayError('invalid_envelope', `invalid envelope: objects and arrays nest deeper than ${space.limits.maxJsonDepth} levels`, {
          max_json_depth: space.limits.maxJsonDepth,
        });
      }
      value = parseJson(data);
      return this.accept(space, participant, value);
    } catch (e) {
      const error = e instanceof GatewayError ? e : new GatewayError('internal_error', 'the gateway failed to process this message');
      if (!(e instanceof GatewayError)) console.error('[gateway] unexpected error while processing a frame:', e);
      const id = (value as { id?: unknown } | null)?.id;
      const offendingId = typeof id === 'string' && id ? id.slice(0, 256) : scannedId;
      if (AUDITED_REFUSALS.has(error.code)) this.auditRefusal(space, participant, error, value, offendingId);
      const kind = (value as { kind?: unknown } | null)?.kind;
      space.refused({ participant: participant.id, error: error.code, ...(typeof kind === 'string' && { kind: kind.slice(0, 64) }) });
      return { ok: false, error, offendingId };
    }
  }

  /**
   * Runs the pipeline on a decoded value and routes it.
   * Order: gateway-only kinds → structure → identity → capability → pause/shutdown → rate limit → the kind's
   * own checks (grants, invites, streams…). Throws GatewayError; nothing is routed or changed on a refusal.
   */
  private accept(space: Space, participant: Participant, value: unknown): Extract<SubmitResult, { ok: true }> {
    const kind = (value as { kind?: unknown } | null)?.kind;
    // Checked before the schema so that a forged system/* envelope is named for what it is.
    if (typeof kind === 'string' && (isReservedKind(kind) || GATEWAY_EMITTED_KINDS.has(kind))) {
      throw new GatewayError('reserved_kind', `only the gateway may send "${kind}"`, { attempted_kind: kind });
    }
    const parsed = parseEnvelope(value, { inbound: true });
    if (!parsed.ok) {
      throw new GatewayError('invalid_envelope', `invalid envelope: ${formatIssues(parsed.issues)}`, { issues: parsed.issues });
    }
    const inbound = parsed.envelope;
    if (inbound.from !== undefined && inbound.from !== participant.id) {
      throw new GatewayError('identity_mismatch', `"from" is "${inbound.from}" but this connection is "${participant.id}"`);
    }
    // Before the capability and rate checks: the original passed them, and a resend must settle, not fail anew.
    const original = inbound.id === undefined ? undefined : space.retainedFrom(participant.id, inbound.id);
    if (original && original.envelope!.kind === inbound.kind) return { ok: true, envelope: original.envelope, duplicate: original };
    if (!participant.compiled.matches(inbound)) {
      throw new GatewayError('capability_violation', `you lack a capability for "${inbound.kind}" with this payload`, {
        attempted_kind: inbound.kind,
        your_capabilities: participant.capabilities,
      });
    }
    this.checkActive(participant, inbound.kind);
    const retryAfterMs = participant.rate.take();
    if (retryAfterMs > 0) {
      throw new GatewayError('rate_limited', `rate limit of ${space.limits.ratePerSecond} envelopes/s exceeded`, {
        retry_after_ms: retryAfterMs,
      });
    }
    const handler = MANAGEMENT[inbound.kind] as ManagementHandler | undefined;
    const apply = handler?.(space, participant, inbound);
    inbound.protocol ??= PROTOCOL_VERSION;
    inbound.id ??= randomUUID();
    inbound.ts ??= new Date().toISOString();
    inbound.from ??= participant.id;
    const envelope = inbound as Envelope;
    // An approval short of its proposal's quorum (config `approvals`) is held: announced, echoed to its sender alone.
    if (envelope.kind === 'mcp/request' && space.approvals.admit(envelope) === 'held') return { ok: true, envelope };
    space.route(envelope);
    apply?.(envelope);
    if (envelope.kind === 'participant/status') space.budgets.observe(participant, envelope.payload);
    if (PROPOSAL_TRAIL_KINDS.has(envelope.kind)) {
      space.approvals.observe(envelope);
      this.auditProposalTrail(space, envelope);
    }
    return { ok: true, envelope };
  }

  /** Paused and shut-down participants may still send replies that close loops others wait on (the exempt kinds). */
  private checkActive(participant: Participant, kind: string): void {
    if (isPauseExemptKind(kind)) return;
    const pause = participant.activePause();
    if (pause) {
      throw new GatewayError('participant_paused', `you are paused by ${pause.by}${pause.until ? ` until ${new Date(pause.until).toISOString()}` : ''}`, {
        paused_by: pause.by,
        ...(pause.until ? { until: new Date(pause.until).toISOString() } : {}),
      });
    }
    if (participant.shutdown) {
      throw new GatewayError('participant_shutdown', `you were shut down by ${participant.shutdown.by}; rejoin to send again`);
    }
  }

  /**
   * Each proposal's trail, one chain by its `trace_id` (the proposal's id, MGP §6.5): proposed, then fulfilled or
   * rejected (by whom) or withdrawn, then executed (the response to the fulfilling request: success or error).
   */
  private auditProposalTrail(space: Space, envelope: Envelope): void {
    const payload = envelope.payload as McpTrailPayload | undefined;
    if (envelope.kind === 'mcp/proposal') {
      const tool = typeof payload?.params?.name === 'string' ? payload.params.name : undefined;
      space.proposals.remember(trackedProposalOf(envelope, space.approvals.proposalCall(envelope)));
      space.audit('PROPOSAL_CREATED', {
        actor: envelope.from,
        envelope_id: envelope.id,
        details: { trace_id: envelope.id, method: payload?.method, tool, to: envelope.to ?? [] },
      });
      return;
    }
    if (envelope.kind === 'mcp/response') {
      const call = space.proposals.takeFulfilment(envelope.correlation_id);
      if (!call) return;
      const error = payload?.error;
      const toolError = isRecord(payload?.result) && payload.result.isError === true;
      space.audit('PROPOSAL_EXECUTED', {
        actor: envelope.from,
        subject: call.proposer,
        envelope_id: envelope.id,
        details: {
          trace_id: call.id,
          proposal_id: call.id,
          tool: call.tool,
          approved_by: call.approvedBy,
          outcome: error !== undefined || toolError ? 'error' : 'success',
          ...(error !== undefined && { error: { code: error.code, message: error.message } }),
          ...(toolError && { tool_error: true }),
        },
      });
      return;
    }
    const proposal = space.proposals.find(envelope.correlation_id);
    if (!proposal) return;
    // An automatic decision is on file with the rule that made it (its id and version); only the space's
    // supervisor may name one, so no participant can pass its own decision off as policy.
    const rule = envelope.from !== space.supervisor ? undefined : envelope.kind === 'mcp/request' ? ruleRefOfParams(payload?.params) : ruleRefOfReject(payload);
    const trail = { trace_id: proposal.id, proposal_id: proposal.id, tool: proposal.tool, ...(rule && { rule }) };
    if (envelope.kind === 'mcp/request') {
      space.proposals.fulfilled(envelope.id, proposal, envelope.from);
      // A call that took several approvals names every approver.
      const approvals = space.approvals.approversOf(proposal.id);
      space.audit('PROPOSAL_FULFILLED', {
        actor: envelope.from,
        subject: proposal.proposer,
        envelope_id: envelope.id,
        details: { ...trail, ...(approvals && { approvals }) },
      });
    } else if (envelope.kind === 'mcp/reject') {
      space.audit('PROPOSAL_REJECTED', {
        actor: envelope.from,
        subject: proposal.proposer,
        envelope_id: envelope.id,
        // The rejecter's explanation (the SDK sends it in the payload beside the chat the proposer reads) is kept too.
        details: {
          ...trail,
          reason: payload?.reason,
          ...(typeof payload?.explanation === 'string' && { explanation: payload.explanation.slice(0, MAX_AUDITED_EXPLANATION) }),
        },
      });
    } else if (envelope.kind === 'mcp/withdraw') {
      space.audit('PROPOSAL_WITHDRAWN', { actor: envelope.from, envelope_id: envelope.id, details: { ...trail, reason: payload?.reason } });
    }
  }

  /** Answers a refused frame with a `system/error` to the connection that sent it alone; the connection stays open. */
  private answerRefusal(space: Space, participant: Participant, { error, offendingId }: Extract<SubmitResult, { ok: false }>, connection: Connection): void {
    space.emit(
      'system/error',
      { error: error.code, message: error.message, ...error.details },
      {
        to: [participant.id],
        correlationId: offendingId ? [offendingId] : undefined,
        only: connection,
      },
    );
  }

  /** A refusal that is a security decision: on the audit record, and told to the space's operators as it happens. */
  private auditRefusal(space: Space, participant: Participant, error: GatewayError, value: unknown, offendingId: string | undefined): void {
    const attempted = value as { kind?: string; payload?: { method?: unknown; params?: { name?: unknown } } } | null;
    const tool = typeof attempted?.payload?.params?.name === 'string' ? attempted.payload.params.name : undefined;
    space.audit(violationEventType(attempted?.kind, attempted?.payload?.method), {
      actor: participant.id,
      envelope_id: offendingId,
      details: { error: error.code, attempted_kind: attempted?.kind, method: attempted?.payload?.method, tool: attempted?.payload?.params?.name },
    });
    space.reportSecurityEvent(participant, {
      error: error.code,
      message: error.message,
      ...(typeof attempted?.kind === 'string' && { attempted_kind: attempted.kind }),
      ...(tool !== undefined && { tool }),
      ...(offendingId !== undefined && { envelope_id: offendingId }),
    });
  }
}

/** One frame's JSON (the size was checked before). */
function parseJson(data: Buffer): unknown {
  try {
    return JSON.parse(data.toString('utf8'));
  } catch (e) {
    throw new GatewayError('invalid_json', `not JSON: ${(e as Error).message}`);
  }
}

function checkFrameSize(size: number, limits: Pick<GatewayLimits, 'maxFrameBytes'>): void {
  if (size > limits.maxFrameBytes) {
    throw new GatewayError('message_too_large', `message of ${size} bytes exceeds the limit of ${limits.maxFrameBytes} bytes`, {
      limit_bytes: limits.maxFrameBytes,
    });
  }
}
