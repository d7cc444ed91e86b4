import { randomUUID } from 'node:crypto';
import { covers, type CapabilityPattern } from '../capabilities';
import { CLOSE_CODES, PROTOCOL_VERSION, type Envelope } from '../protocol';
import type { AuditSink } from './audit-sink';
import { GATEWAY_ID, type GatewayLimits } from './gateway-options';
import { RingBuffer } from '../collections/ring-buffer';
import { OutboundMessage } from './outbound-message';
import { Participant, type Connection, type RoutingMode } from './participant';
import type { SpaceState } from './space-state';
import { StreamRegistry, type StreamInfo } from './stream-registry';
import { TokenIndex } from './token-index';
import type { TokenStore } from './token-store';

export interface SpaceServices {
  limits: GatewayLimits;
  state: SpaceState;
  tokenStore: TokenStore;
  audit: AuditSink;
  /** The URL a new participant connects to (for invite acks). */
  connectionUrl(): string;
}

/**
 * One space: its participants, who is connected, open streams, run-time state and the ring of recent
 * envelopes. Spaces share nothing, which is what keeps capabilities, history and presence from leaking.
 */
export class Space {
  readonly participants = new Map<string, Participant>();
  readonly tokens = new TokenIndex();
  readonly streams = new StreamRegistry();
  readonly history: RingBuffer<OutboundMessage>;
  readonly limits: GatewayLimits;
  /** Connected participants as an array, rebuilt on join/leave, so fan-out is a plain loop. */
  private online: Participant[] = [];
  /** Who the printed sign-in URL signs in as, with that participant's token (config `dashboard.sign_in_as`). */
  signIn?: { participantId: string; token: string };

  constructor(
    readonly id: string,
    readonly name: string,
    readonly services: SpaceServices,
  ) {
    this.limits = services.limits;
    this.history = new RingBuffer(services.limits.historySize);
  }

  get connectedCount(): number {
    return this.online.length;
  }

  get state() {
    return this.services.state.data;
  }

  /** Records an audit event for this space (batched by the sink; never blocks the message path). */
  audit(type: string, fields: { actor?: string; subject?: string; envelope_id?: string; details?: Record<string, unknown> } = {}): void {
    this.services.audit.record({ space: this.id, type, details: {}, ...fields });
  }

  /** Adds a participant with its tokens and computes its effective capabilities from the persisted state. */
  addParticipant(
    id: string,
    base: CapabilityPattern[],
    routing: RoutingMode,
    tokens: readonly string[],
    invitedBy?: string,
  ): Participant {
    const participant = new Participant(id, base, routing, this.limits, invitedBy);
    this.participants.set(id, participant);
    for (const token of tokens) this.tokens.add(token, id);
    this.refreshCapabilities(participant);
    return participant;
  }

  /**
   * Effective capabilities = base − revoked-by-pattern + active grants. Called after every grant, revoke,
   * invite; sends the participant a fresh welcome when it is connected so it knows at once.
   */
  refreshCapabilities(participant: Participant): void {
    const revocations = this.state.revocations.filter((r) => r.recipient === participant.id);
    const base = participant.baseCapabilities.filter((c) => !revocations.some((r) => r.capabilities.some((p) => covers([p], c))));
    const granted = this.state.grants.filter((g) => g.recipient === participant.id && !g.revoked).flatMap((g) => g.capabilities);
    participant.capabilities = [...base, ...granted];
    if (participant.online) this.sendWelcome(participant);
  }

  /**
   * Makes `connection` the participant's live connection. A previous connection of the same participant
   * is closed (4409) rather than left half-alive; others learn of the join only when it is a new presence.
   */
  attach(participant: Participant, connection: Connection): void {
    const previous = participant.connection;
    participant.connection = connection;
    participant.connectedAt = new Date();
    participant.shutdown = undefined; // a shutdown lasts until the participant joins again
    for (const stream of this.streams.ownedBy(participant.id)) {
      clearTimeout(stream.orphanTimer);
      stream.orphanTimer = undefined;
    }
    if (previous) previous.close(CLOSE_CODES.replaced, 'replaced by a newer connection of the same participant');
    this.sendWelcome(participant);
    if (previous) return;
    // Announced before joining the fan-out list: the joiner learns of itself from its welcome, not from presence.
    this.emit('system/presence', {
      event: 'join',
      participant: { id: participant.id, capabilities: participant.capabilities },
    });
    this.online = [...this.online, participant];
    this.audit('PARTICIPANT_JOINED', { actor: participant.id });
  }

  /** Forgets `connection` if it is still the participant's live one, tells the others, and orphans its streams. */
  detach(participant: Participant, connection: Connection): void {
    if (participant.connection !== connection) return;
    participant.connection = undefined;
    participant.connectedAt = undefined;
    this.online = this.online.filter((p) => p !== participant);
    this.emit('system/presence', { event: 'leave', participant: { id: participant.id } });
    this.audit('PARTICIPANT_LEFT', { actor: participant.id });
    for (const stream of this.streams.ownedBy(participant.id)) {
      stream.orphanTimer ??= setTimeout(() => this.closeStream(stream, 'owner_left'), this.limits.streamOrphanGraceMs);
      stream.orphanTimer.unref?.();
    }
  }

  /** Sends the participant its authoritative identity, capabilities, the others present and open streams. */
  sendWelcome(participant: Participant): void {
    this.emit(
      'system/welcome',
      {
        you: { id: participant.id, capabilities: participant.capabilities },
        participants: this.online
          .filter((p) => p !== participant)
          .map((p) => ({ id: p.id, capabilities: p.capabilities })),
        active_streams: this.streams.list(),
      },
      { to: [participant.id] },
    );
  }

  /** Routes an accepted envelope: to everyone connected (sender included), minus directed-mode bystanders. */
  route(message: OutboundMessage): void {
    this.history.push(message);
    const envelope = message.envelope!;
    for (const p of this.online) if (p.receives(envelope)) p.connection!.deliver(message);
  }

  /** Routes a `#id#data` frame to the stream's targets and owner, or to everyone. Frames stay out of history. */
  routeStreamFrame(stream: StreamInfo, message: OutboundMessage): void {
    for (const p of this.online) {
      if (!stream.target || p.id === stream.owner || stream.target.includes(p.id)) p.connection!.deliver(message);
    }
  }

  /** The gateway closes a stream (owner gone, shut down or kicked): everyone is told with a `stream/close`. */
  closeStream(stream: StreamInfo, reason: string): void {
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
    options: { to?: string[]; correlationId?: string[]; broadcastTo?: string[] } = {},
  ): OutboundMessage {
    const to = options.to ?? options.broadcastTo;
    const envelope = {
      protocol: PROTOCOL_VERSION,
      id: randomUUID(),
      ts: new Date().toISOString(),
      from: GATEWAY_ID,
      ...(to ? { to } : {}),
      kind,
      ...(options.correlationId ? { correlation_id: options.correlationId } : {}),
      payload,
    } as Envelope;
    const message = OutboundMessage.of(envelope, options.to);
    if (!options.to) {
      this.route(message);
      return message;
    }
    this.history.push(message);
    for (const id of options.to) this.participants.get(id)?.connection?.deliver(message);
    return message;
  }

  /** Recent envelopes `participantId` may see, received after `sinceMs`, oldest first. */
  historyFor(participantId: string, sinceMs = 0): Envelope[] {
    return this.history
      .toArray()
      .filter((m) => m.receivedAt > sinceMs && (!m.visibleTo || m.visibleTo.includes(participantId)))
      .map((m) => m.envelope!);
  }
}
