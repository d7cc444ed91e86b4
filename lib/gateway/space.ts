import { randomUUID } from 'node:crypto';
import { covers, type CapabilityPattern } from '../capabilities';
import { CLOSE_CODES, PROTOCOL_VERSION, type Envelope, type ErrorCode, type SystemSecurityEventPayload } from '../protocol';
import { BoundedMap } from '../collections/bounded-map';
import type { AuditSink } from './audit-sink';
import { GATEWAY_ID, SECURITY_EVENT_BURST, SECURITY_EVENTS_PER_SECOND, type GatewayLimits } from './gateway-options';
import { TokenBucket } from './token-bucket';
import { formatCursor, type HistoryPosition } from './history-cursor';
import type { HistoryStore, PastEpoch } from './history-store';
import { RingBuffer } from '../collections/ring-buffer';
import { OutboundMessage } from './outbound-message';
import { Participant, type Connection, type Link, type RoutingMode } from './participant';
import { ProposalTracker } from './proposal-tracker';
import { ApprovalQuorum } from './approval-quorum';
import { GrantExpiry } from './grant-expiry';
import type { PauseRecord, SpaceRecords, SpaceStateData, TokenChanges } from './persistence/space-records';
import { SpaceBudgets } from './space-budgets';
import { StreamRegistry, type OpenStream, type StreamReplica } from './stream-registry';
import { TokenIndex } from './token-index';

/** Offenders whose security-event budget is remembered (the oldest forgotten first). */
const SECURITY_EVENT_OFFENDERS = 1_000;

/** Who did what to whom, for an audit record of this space. */
export interface AuditFields {
  actor?: string;
  subject?: string;
  envelope_id?: string;
  details?: Record<string, unknown>;
}

/** One audit record of a `commit`. */
export type AuditEntry = AuditFields & { type: string };

/** A frame the gateway refused (answered with a `system/error`, nothing routed), as refusal observers are told of it. */
export interface Refusal {
  participant: string;
  error: ErrorCode;
  /** The kind the frame named, when it named one. */
  kind?: string;
}

export interface SpaceServices {
  limits: GatewayLimits;
  /** Minted tokens and run-time state, persisted. */
  records: SpaceRecords;
  audit: AuditSink;
  /** Where the numbered history outlives the process. */
  history: HistoryStore;
  /** The URL a new participant connects to (for invite acks). */
  connectionUrl(): string;
  /** Where open streams are also kept (cluster mode). @default nowhere: streams end with the process */
  streams?: StreamReplica;
}

/** What a catch-up sent: how many envelopes, and whether none after the cursor had been dropped meanwhile. */
export interface CatchUp {
  replayed: number;
  complete: boolean;
}

/** How a connection attaches: its routing, its catch-up cursor, whether it replaces the participant's others. */
export interface AttachOptions {
  after?: HistoryPosition;
  routing?: RoutingMode;
  exclusive?: boolean;
  /** A connection this space had before its owner changed (cluster mode): bound again without welcome or presence. */
  resumed?: boolean;
}

/** A page of history for `GET /participants/{id}/messages`. */
export interface HistoryPage {
  messages: Envelope[];
  /** The last message's cursor, or the space's head when there is none: where the next poll continues. */
  cursor: string;
  complete: boolean;
}

/**
 * One space: its participants, who is connected, open streams, run-time state and the numbered ring of recent
 * envelopes. Spaces share nothing, which is what keeps capabilities, history and presence from leaking.
 */
/**
 * Envelopes of directed participants' conversations remembered (`Space.conversations`): far more than the requests,
 * proposals and answers under way at once, and a proposal waiting for approval for hours stays among them unless
 * this many newer conversation envelopes came since.
 */
const DIRECTED_CONVERSATIONS_KEPT = 100_000;

export class Space {
  readonly participants = new Map<string, Participant>();
  readonly tokens = new TokenIndex();
  readonly streams: StreamRegistry;
  readonly budgets: SpaceBudgets = new SpaceBudgets(this);
  /** Who proposed what, for each proposal's audit trail and for "only the proposer withdraws". */
  readonly proposals = new ProposalTracker();
  /** Several-person approval of dangerous tools (config `approvals`): which fulfilments wait for more approvers. */
  readonly approvals: ApprovalQuorum = new ApprovalQuorum(this);
  readonly grantExpiry: GrantExpiry = new GrantExpiry(this);
  private readonly pauseTimers = new Set<ReturnType<typeof setTimeout>>();
  /** In-process observers of routed envelopes (`observe`); an array, so the message path loops without allocating. */
  private observers: ((envelope: Envelope) => void)[] = [];
  /** In-process observers of refused frames (`observeRefusals`). */
  private refusalObservers: ((refusal: Refusal) => void)[] = [];
  /** Per offender: how many security events it may still cause now, and how many went untold. */
  private readonly securityEventBudget = new BoundedMap<string, { bucket: TokenBucket; suppressed: number }>(SECURITY_EVENT_OFFENDERS);
  readonly history: RingBuffer<OutboundMessage>;
  readonly limits: GatewayLimits;
  /** Names this history's numbering: a cursor of another epoch cannot be compared with ours. */
  private readonly epoch: string;
  /** Numberings before an unclean stop whose cursors still name positions in ours (see SqliteHistoryStore). */
  private readonly pastEpochs: readonly PastEpoch[];
  /**
   * Participants' envelopes in the ring by id: one sent again (a client resending what it never saw acknowledged,
   * after a crash or a dropped connection) is recognised and answered with the original instead of happening twice.
   */
  private readonly retainedById = new Map<string, OutboundMessage>();
  /** Envelopes routed this turn that observers have not been told of yet (they are told once these are durable). */
  private unobserved: Envelope[] = [];
  /**
   * Envelope id → the participant with a directed connection whose conversation it belongs to: what it sent, and
   * everything correlated to those, transitively (a proposal, its fulfilment, the tool's answer, a reject's
   * explanation). Its directed connections receive these though they are addressed to others.
   */
  private readonly conversations = new BoundedMap<string, Participant>(DIRECTED_CONVERSATIONS_KEPT);
  /** The number of the newest envelope. */
  private seq = 0;
  /** Connected participants as an array, rebuilt on join/leave, so fan-out is a plain loop. */
  private online: Participant[] = [];
  /**
   * Those of them with a broadcast connection, who receive every envelope; rebuilt when connections change (undefined
   * meanwhile). The others receive only what concerns them, so an addressed envelope need not visit each of them
   * (hundreds of MCP sessions are directed participants).
   */
  private hearingAll?: Participant[];
  /** Who the printed sign-in URL signs in as, with that participant's token (config `dashboard.sign_in_as`). */
  signIn?: { participantId: string; token: string };
  /** The participant that applies the space's approval rules (config `automation.supervisor`): only its decisions may name a rule. */
  supervisor?: string;

  constructor(
    readonly id: string,
    readonly name: string,
    readonly services: SpaceServices,
  ) {
    this.limits = services.limits;
    this.streams = new StreamRegistry(services.streams);
    this.history = new RingBuffer(services.limits.historySize);
    const loaded = services.history.load(id, services.limits.historySize);
    this.epoch = loaded.epoch;
    this.pastEpochs = loaded.pastEpochs ?? [];
    for (const entry of loaded.entries) {
      const envelope = JSON.parse(entry.data) as Envelope;
      this.keep(new OutboundMessage(Buffer.from(entry.data), envelope, entry.receivedAt, entry.visibleTo, false, entry.seq));
      this.seq = entry.seq;
    }
    this.seq = Math.max(this.seq, loaded.lastSeq ?? 0);
  }

  /** The cursor of the newest envelope (where a poller with nothing new continues from). */
  get head(): string {
    return formatCursor(this.epoch, this.seq);
  }

  get connectedCount(): number {
    return this.online.length;
  }

  get state() {
    return this.services.records.data;
  }

  /** Records an audit event for this space (batched by the sink; never blocks the message path). */
  audit(type: string, fields: AuditFields = {}): void {
    this.services.audit.record({ space: this.id, type, details: {}, ...fields });
  }

  /**
   * Changes the space's security state (grants, invites, kicks, pauses…) and writes its audit records in the same
   * transaction, before anyone is told: a crash right after the acknowledgement loses neither, and a failed audit
   * write leaves the state unchanged. `audit` runs after `change`, so it may report what the change worked out.
   */
  commit(change: (data: SpaceStateData, tokens: TokenChanges) => void, audit: () => AuditEntry | AuditEntry[]): void {
    this.services.records.update(change, () => {
      for (const { type, ...fields } of [audit()].flat()) this.services.audit.recordNow({ space: this.id, type, details: {}, ...fields });
    });
  }

  /** Adds a participant with its tokens and computes its effective capabilities from the persisted state. */
  addParticipant(id: string, base: CapabilityPattern[], routing: RoutingMode, tokens: readonly string[], invitedBy?: string): Participant {
    const participant = new Participant(id, base, routing, this.limits, invitedBy);
    this.participants.set(id, participant);
    for (const token of tokens) this.tokens.add(token, id);
    // Tokens operators issued it besides (a kick removed them from the state): known by their SHA-256 only.
    for (const issued of this.state.issuedTokens) if (issued.participant === id) this.tokens.addSha256(issued.sha256, id);
    this.refreshCapabilities(participant);
    return participant;
  }

  /**
   * Effective capabilities = base − revoked-by-pattern + active grants. Called after every grant, revoke,
   * invite; sends the participant a fresh welcome when it is connected so it knows at once.
   */
  refreshCapabilities(participant: Participant): void {
    participant.capabilities = this.effectiveCapabilities(participant, this.state);
    if (participant.online) this.sendWelcome(participant);
  }

  /**
   * A timed pause lifts itself at its `until`: the state forgets it, the audit says so (`PARTICIPANT_RESUMED` by
   * the gateway, reason `timeout`) and a `participant/resume` to the target, correlated to the pause, tells
   * everyone (spec §3.9.2: a lapsed pause is still documented by a resume), rather than only its next send noticing.
   */
  expirePauseLater(participant: Participant, pause: PauseRecord): void {
    if (pause.until === undefined) return;
    const timer = setTimeout(
      () => {
        this.pauseTimers.delete(timer);
        // Resumed, or paused again, meanwhile: that pause is not this one.
        if (this.state.paused[participant.id]?.envelopeId !== pause.envelopeId) return;
        try {
          this.commit(
            (d) => void delete d.paused[participant.id],
            () => ({ type: 'PARTICIPANT_RESUMED', actor: GATEWAY_ID, subject: participant.id, envelope_id: pause.envelopeId, details: { reason: 'timeout' } }),
          );
          if (participant.paused?.envelopeId === pause.envelopeId) participant.paused = undefined;
          this.emit('participant/resume', { reason: 'timeout' }, { broadcastTo: [participant.id], correlationId: [pause.envelopeId] });
        } catch (error) {
          console.error(`[gateway] could not lift the lapsed pause of ${participant.id}:`, (error as Error).message);
        }
      },
      Math.max(0, pause.until - Date.now()),
    );
    timer.unref?.();
    this.pauseTimers.add(timer);
  }

  /**
   * Tells the space's operators (online participants who may grant any capability: those who hand out
   * capabilities see what is attempted against them) that `offender` was refused; never the offender, never
   * everyone. At most a few a second per offender: the rest are counted into the next one's `suppressed`.
   */
  reportSecurityEvent(offender: Participant, event: { error: string; message?: string; attempted_kind?: string; tool?: string; envelope_id?: string }): void {
    const suppressed = this.withinSecurityBudget(offender.id);
    if (suppressed === undefined) return;
    this.tellOperators({ ...event, offender: offender.id, ...(suppressed > 0 && { suppressed }) }, offender.id);
  }

  /**
   * A token that authenticates nobody: audited (`AUTH_FAILED`, with where it came from) and told to operators, at
   * most a few a second per address, so a client guessing tokens cannot flood the log or the operators.
   */
  reportAuthFailure(attempt: { via: string; address?: string }): void {
    const suppressed = this.withinSecurityBudget(`unauthenticated ${attempt.address ?? ''}`);
    if (suppressed === undefined) return;
    const counted = suppressed > 0 ? { suppressed } : {};
    this.audit('AUTH_FAILED', { details: { via: attempt.via, address: attempt.address, ...counted } });
    this.tellOperators({
      offender: `unauthenticated${attempt.address ? ` (${attempt.address})` : ''}`,
      error: 'invalid_token',
      message: `an unknown or revoked token over ${attempt.via}`,
      ...counted,
    });
  }

  /** Undefined when `key` is over its budget (then counted); else how many went untold before this one. */
  private withinSecurityBudget(key: string): number | undefined {
    let budget = this.securityEventBudget.get(key);
    if (!budget) this.securityEventBudget.set(key, (budget = { bucket: new TokenBucket(SECURITY_EVENTS_PER_SECOND, SECURITY_EVENT_BURST), suppressed: 0 }));
    if (budget.bucket.take() > 0) {
      budget.suppressed++;
      return undefined;
    }
    const suppressed = budget.suppressed;
    budget.suppressed = 0;
    return suppressed;
  }

  private tellOperators(payload: SystemSecurityEventPayload, except?: string): void {
    const operators = this.online.filter((p) => p.id !== except && covers(p.capabilities, { kind: 'capability/grant' })).map((p) => p.id);
    if (operators.length > 0) this.emit('system/security-event', payload, { to: operators }); // else: the audit log has it
  }

  /** Stops the space's own timers (the gateway is closing). */
  cancelTimers(): void {
    for (const timer of this.pauseTimers) clearTimeout(timer);
    this.pauseTimers.clear();
    this.grantExpiry.cancel();
    this.streams.cancelOrphanTimers();
  }

  /** What a participant may send by `state`: base − revoked-by-pattern + active grants. */
  effectiveCapabilities(participant: Participant, state: SpaceStateData): CapabilityPattern[] {
    const granted = state.grants.filter((g) => g.recipient === participant.id && !g.revoked).flatMap((g) => g.capabilities);
    return [...this.remainingBase(participant, state), ...granted];
  }

  /** A participant's configured (or invited) capabilities minus those revoked by pattern. */
  remainingBase(participant: Participant, state: SpaceStateData): CapabilityPattern[] {
    const revocations = state.revocations.filter((r) => r.recipient === participant.id);
    return participant.baseCapabilities.filter((c) => !revocations.some((r) => r.capabilities.some((p) => covers([p], c))));
  }

  /**
   * Adds `connection` to the participant's live ones (several tabs or devices may be connected at once). Beyond
   * `maxConnectionsPerParticipant`, or when it asks to be `exclusive`, older ones are closed (4409) rather than left
   * half-alive. Others learn of the join only when it is the participant's first connection. With `after`, what this
   * connection missed is sent to it first, then its welcome (which says how the catch-up went): all in this one turn
   * of the event loop, so no live envelope can fall between or come twice.
   */
  attach(participant: Participant, connection: Connection, options: AttachOptions = {}): void {
    const link: Link = { connection, routing: options.routing ?? participant.defaultRouting, connectedAt: new Date() };
    const wasOnline = participant.online;
    const keep = options.exclusive ? 0 : this.limits.maxConnectionsPerParticipant - 1;
    const replaced = participant.links.slice(0, Math.max(0, participant.links.length - keep));
    participant.links = [...participant.links.slice(replaced.length), link];
    this.hearingAll = undefined;
    participant.shutdown = undefined; // a shutdown lasts until the participant joins again
    for (const stream of this.streams.ownedBy(participant.id)) {
      clearTimeout(stream.orphanTimer);
      stream.orphanTimer = undefined;
    }
    for (const old of replaced) {
      old.connection.close(
        CLOSE_CODES.replaced,
        options.exclusive ? 'replaced by an exclusive connection of the same participant' : 'replaced by a newer connection of the same participant',
      );
    }
    if (options.resumed) {
      // Its welcome and the others' presence were sent by the previous owner; nothing it knows has changed.
      if (!wasOnline) this.online = [...this.online, participant];
      this.hearingAll = undefined;
      return;
    }
    const catchUp = options.after === undefined ? undefined : this.replay(participant, link, options.after);
    this.sendWelcome(participant, catchUp, connection);
    if (wasOnline) return;
    // Announced before joining the fan-out list: the joiner learns of itself from its welcome, not from presence.
    this.emit('system/presence', {
      event: 'join',
      participant: { id: participant.id, capabilities: participant.capabilities },
    });
    this.online = [...this.online, participant];
    this.hearingAll = undefined;
    this.audit('PARTICIPANT_JOINED', { actor: participant.id });
  }

  /**
   * Forgets `connection` if it is one of the participant's live ones; when it was the last, tells the others and
   * orphans the participant's streams. `close` (how the connection ended) is the audited reason it left.
   */
  detach(participant: Participant, connection: Connection, close?: { code: number; reason: string }): void {
    const remaining = participant.links.filter((link) => link.connection !== connection);
    if (remaining.length === participant.links.length) return;
    participant.links = remaining;
    this.hearingAll = undefined;
    if (remaining.length > 0) return;
    this.online = this.online.filter((p) => p !== participant);
    this.emit('system/presence', { event: 'leave', participant: { id: participant.id } });
    this.audit('PARTICIPANT_LEFT', { actor: participant.id, details: close ? { code: close.code, reason: close.reason } : {} });
    this.orphanStreamsOf(participant.id);
  }

  /** The participant's streams close after a grace period unless it comes back (it left, or was never back). */
  orphanStreamsOf(participantId: string): void {
    for (const stream of this.streams.ownedBy(participantId)) {
      stream.orphanTimer ??= setTimeout(() => this.closeStream(stream, 'owner_left'), this.limits.streamOrphanGraceMs);
      stream.orphanTimer.unref?.();
    }
  }

  /** Sends one connection what `participant` may see of the retained history after `after`, oldest first. */
  private replay(participant: Participant, link: Link, after: HistoryPosition): CatchUp {
    const { from, complete } = this.positionOf(after);
    let replayed = 0;
    for (const message of this.history.toArray()) {
      if (message.seq <= from || !this.visible(message, participant.id) || !participant.receives(message.envelope!, link.routing)) continue;
      // An old welcome describes a connection that is gone; the fresh one sent next supersedes it.
      if (message.envelope!.kind === 'system/welcome') continue;
      link.connection.deliver(message);
      replayed++;
    }
    return { replayed, complete };
  }

  /** The seq after which to read for a cursor, and whether nothing after it has left the ring since. */
  private positionOf(after: HistoryPosition): { from: number; complete: boolean } {
    const oldest = this.history.at(0)?.seq ?? this.seq + 1;
    if (after === 'start') return { from: 0, complete: oldest === 1 || this.seq === 0 };
    // Another numbering (history lost, or a power loss that took written entries) or numbers we never issued: we
    // cannot tell where the client is, so it gets all we have (clients drop envelope ids they already handled).
    if (!this.isOurs(after) || after.seq > this.seq) return { from: 0, complete: false };
    return { from: after.seq, complete: oldest <= after.seq + 1 };
  }

  private isOurs(position: { epoch: string; seq: number }): boolean {
    if (position.epoch === this.epoch) return true;
    const past = this.pastEpochs.find((e) => e.epoch === position.epoch);
    return past !== undefined && position.seq >= past.firstSeq && position.seq <= past.lastSeq;
  }

  private visible(message: OutboundMessage, participantId: string): boolean {
    return !message.visibleTo || message.visibleTo.includes(participantId);
  }

  /** Sends the participant its authoritative identity, capabilities, the others present and open streams. */
  /** To all its connections (a change of its capabilities), or to `only` one of them (the one that just joined). */
  sendWelcome(participant: Participant, catchUp?: CatchUp, only?: Connection): void {
    this.emit(
      'system/welcome',
      {
        you: { id: participant.id, capabilities: participant.capabilities },
        participants: this.online.filter((p) => p !== participant).map((p) => ({ id: p.id, capabilities: p.capabilities })),
        active_streams: this.streams.list(),
        ...(catchUp ? { catch_up: catchUp } : {}),
      },
      { to: [participant.id], ...(only && { only }) },
    );
  }

  /** Routes an accepted envelope: to everyone connected (sender included), minus directed-mode bystanders. */
  route(envelope: Envelope): OutboundMessage {
    const message = this.record(envelope);
    const owner = this.conversationOf(envelope);
    const to = envelope.to;
    if (!to || to.length === 0) for (const p of this.online) p.deliver(message, envelope, p === owner);
    else this.routeAddressed(message, envelope, to, owner);
    if (this.observers.length > 0 && this.unobserved.push(envelope) === 1) this.services.history.whenDurable(this.tellObservers);
    return message;
  }

  /**
   * Delivers an envelope addressed to some: to everyone with a broadcast connection, and to the directed connections
   * it concerns (its sender's, its addressees', its conversation's), the same as `Participant.receives` would select
   * from everyone.
   */
  private routeAddressed(message: OutboundMessage, envelope: Envelope, to: readonly string[], owner: Participant | undefined): void {
    const hearing = (this.hearingAll ??= this.online.filter(hearsAll));
    for (const p of hearing) p.deliver(message, envelope, p === owner);
    if (hearing.length === this.online.length) return;
    const reached: Participant[] = [];
    const reach = (p: Participant | undefined) => {
      if (!p || reached.includes(p) || hearsAll(p)) return;
      reached.push(p);
      p.deliver(message, envelope, p === owner);
    };
    reach(this.participants.get(envelope.from));
    for (const id of to) reach(this.participants.get(id));
    reach(owner);
  }

  /**
   * The directed participant whose conversation `envelope` continues (it answers something in it), else its sender
   * when that one has a directed connection; remembered for what answers it in turn.
   */
  private conversationOf(envelope: Envelope): Participant | undefined {
    let owner: Participant | undefined;
    const ids = envelope.correlation_id;
    if (ids && this.conversations.size > 0) {
      for (const id of ids) if ((owner = this.conversations.get(id))) break;
    }
    if (!owner) {
      const sender = this.participants.get(envelope.from);
      if (sender?.hasDirectedLink) owner = sender;
    }
    if (owner) this.conversations.set(envelope.id, owner);
    return owner;
  }

  /** The envelope `participantId` sent with this id, while the space retains it: a second send of it is a resend. */
  retainedFrom(participantId: string, id: string): OutboundMessage | undefined {
    const message = this.retainedById.get(id);
    return message?.envelope?.from === participantId ? message : undefined;
  }

  /** Resolves once everything this space (and its store) has recorded so far is durable: for answers that show it. */
  durable(): Promise<void> {
    return new Promise((done) => this.whenDurable(done));
  }

  /** Calls `done` once everything this space has recorded so far is durable (at once when nothing waits to be written). */
  whenDurable(done: () => void): void {
    this.services.history.whenDurable(done);
  }

  private readonly tellObservers = (): void => {
    const envelopes = this.unobserved;
    this.unobserved = [];
    for (const envelope of envelopes) for (const observer of this.observers) observer(envelope);
  };

  /**
   * Tells `observer` of every envelope routed to the space from now on (not those addressed by the gateway to one
   * participant), in order, once it is durable: in-process services such as notifications act on nothing a crash
   * could take back. It must not throw or block. Returns the way to stop.
   */
  observe(observer: (envelope: Envelope) => void): () => void {
    this.observers = [...this.observers, observer];
    return () => {
      this.observers = this.observers.filter((o) => o !== observer);
    };
  }

  /**
   * Tells `observer` of every frame refused from now on (`refused`), at once: counts for in-process services such as
   * metrics. It must not throw or block. Returns the way to stop.
   */
  observeRefusals(observer: (refusal: Refusal) => void): () => void {
    this.refusalObservers = [...this.refusalObservers, observer];
    return () => {
      this.refusalObservers = this.refusalObservers.filter((o) => o !== observer);
    };
  }

  /** The gateway refused a participant's frame: refusal observers are told (nothing to do when there are none). */
  refused(refusal: Refusal): void {
    for (const observer of this.refusalObservers) observer(refusal);
  }

  /**
   * Numbers the envelope (its `cursor`), serialises it once for every recipient and the history store, and keeps
   * it in the ring. The store writes it by the end of the turn, before transports let anyone see it.
   */
  private record(envelope: Envelope, visibleTo?: readonly string[]): OutboundMessage {
    const seq = ++this.seq;
    envelope.cursor = formatCursor(this.epoch, seq);
    const data = JSON.stringify(envelope);
    const message = new OutboundMessage(Buffer.from(data), envelope, Date.now(), visibleTo, false, seq);
    this.keep(message);
    this.services.history.append(this.id, { seq, data, bytes: message.data, receivedAt: message.receivedAt, ...(visibleTo ? { visibleTo } : {}) });
    return message;
  }

  /**
   * Records a participant's accepted envelope without routing it (an approval short of its proposal's quorum): only
   * its sender's connections receive it (the echo that settles its send) and only it reads it back from history, so
   * nobody acts on it; a resend of it is recognised like any other.
   */
  hold(envelope: Envelope): OutboundMessage {
    const message = this.record(envelope, [envelope.from]);
    for (const link of this.participants.get(envelope.from)?.links ?? []) link.connection.deliver(message);
    return message;
  }

  /** Keeps the message in the ring (participants' envelopes by id too); the one it evicts is forgotten by id. */
  private keep(message: OutboundMessage): void {
    if (message.envelope!.from !== GATEWAY_ID) this.retainedById.set(message.envelope!.id, message);
    const evicted = this.history.push(message);
    const id = evicted?.envelope?.id;
    if (id !== undefined && this.retainedById.get(id) === evicted) this.retainedById.delete(id);
  }

  /** Routes a `#id#data` frame to the stream's targets and owner, or to everyone. Frames stay out of history. */
  routeStreamFrame(stream: OpenStream, message: OutboundMessage): void {
    for (const p of this.online) {
      if (!stream.target || p.id === stream.owner || stream.target.includes(p.id)) for (const link of p.links) link.connection.deliver(message);
    }
  }

  /** The gateway closes a stream (owner gone, shut down or kicked): everyone is told with a `stream/close`. */
  closeStream(stream: OpenStream, reason: string): void {
    if (!this.streams.delete(stream.id)) return;
    this.emit('stream/close', { stream_id: stream.id, reason }, { correlationId: [stream.openId] });
    this.audit('STREAM_CLOSED', { actor: GATEWAY_ID, subject: stream.owner, details: { stream_id: stream.id, reason } });
  }

  /**
   * Emits a gateway envelope. With `to` it is targeted (welcome, error, invite-ack): only the addressees receive
   * it and only they can read it back from history; without `to` it is routed like any envelope.
   */
  emit(
    kind: Envelope['kind'],
    payload: Record<string, unknown>,
    options: {
      to?: string[];
      correlationId?: string[];
      broadcastTo?: string[];
      /** One already on record (a revocation's). */
      id?: string;
      /** With `to` (one participant): only this one of its connections (a welcome, an error about its own frame). */
      only?: Connection;
    } = {},
  ): OutboundMessage {
    const to = options.to ?? options.broadcastTo;
    const envelope = {
      protocol: PROTOCOL_VERSION,
      id: options.id ?? randomUUID(),
      ts: new Date().toISOString(),
      from: GATEWAY_ID,
      ...(to ? { to } : {}),
      kind,
      ...(options.correlationId ? { correlation_id: options.correlationId } : {}),
      payload,
    } as Envelope;
    if (!options.to) return this.route(envelope);
    const message = this.record(envelope, options.to);
    for (const id of options.to) {
      if (options.only) options.only.deliver(message);
      else for (const link of this.participants.get(id)?.links ?? []) link.connection.deliver(message);
    }
    return message;
  }

  /**
   * Retained envelopes `participantId` may see, oldest first: those after the cursor `after`, or received after
   * `sinceMs` (gateway time, never the sender's `ts`).
   */
  historyFor(participantId: string, query: { after?: HistoryPosition; sinceMs?: number } = {}): HistoryPage {
    const { from, complete } = this.positionOf(query.after ?? 'start');
    const sinceMs = query.sinceMs ?? 0;
    const messages = this.history
      .toArray()
      .filter((m) => m.seq > from && m.receivedAt > sinceMs && this.visible(m, participantId))
      .map((m) => m.envelope!);
    return { messages, cursor: messages.at(-1)?.cursor ?? this.head, complete };
  }
}

/** Whether a participant receives every envelope of the space: one of its connections is in broadcast mode. */
function hearsAll(participant: Participant): boolean {
  return participant.links.some((link) => link.routing === 'broadcast');
}
