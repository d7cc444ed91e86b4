import { randomUUID } from 'node:crypto';
import { PROTOCOL_VERSION, type Envelope } from '../protocol';
import type { GatewayLimits } from './gateway-options';
import { GATEWAY_ID } from './gateway-options';
import { HistoryRing } from './history-ring';
import { OutboundMessage } from './outbound-message';
import { Participant, type Connection } from './participant';
import { TokenIndex } from './token-index';
import { CLOSE_CODES } from '../protocol';

/**
 * One space: its participants, who is connected, and the ring of recent envelopes.
 * Spaces share nothing, which is what keeps capabilities, history and presence from leaking between them.
 */
export class Space {
  readonly participants = new Map<string, Participant>();
  readonly tokens = new TokenIndex();
  readonly history: HistoryRing<OutboundMessage>;
  /** Connected participants as an array, rebuilt on join/leave, so fan-out is a plain loop. */
  private online: Participant[] = [];

  constructor(
    readonly id: string,
    readonly name: string,
    readonly limits: GatewayLimits,
  ) {
    this.history = new HistoryRing(limits.historySize);
  }

  get connectedCount(): number {
    return this.online.length;
  }

  /**
   * Makes `connection` the participant's live connection. A previous connection of the same participant
   * is closed (4409) rather than left half-alive; others learn of the join only when it is a new presence.
   */
  attach(participant: Participant, connection: Connection): void {
    const previous = participant.connection;
    participant.connection = connection;
    participant.connectedAt = new Date();
    if (previous) previous.close(CLOSE_CODES.replaced, 'replaced by a newer connection of the same participant');
    this.sendWelcome(participant);
    if (previous) return;
    // Announced before joining the fan-out list: the joiner learns of itself from its welcome, not from presence.
    this.emit('system/presence', {
      event: 'join',
      participant: { id: participant.id, capabilities: participant.capabilities },
    });
    this.online = [...this.online, participant];
  }

  /** Forgets `connection` if it is still the participant's live one, and tells the others. */
  detach(participant: Participant, connection: Connection): void {
    if (participant.connection !== connection) return;
    participant.connection = undefined;
    participant.connectedAt = undefined;
    this.online = this.online.filter((p) => p !== participant);
    this.emit('system/presence', { event: 'leave', participant: { id: participant.id } });
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
        active_streams: [],
      },
      { to: [participant.id] },
    );
  }

  /** Routes an accepted envelope: to everyone connected (sender included), minus directed-mode bystanders. */
  route(message: OutboundMessage): void {
    this.history.push(message);
    const envelope = message.envelope;
    for (const p of this.online) if (p.receives(envelope)) p.connection!.deliver(message);
  }

  /**
   * Emits a gateway envelope. With `to` it is targeted (welcome, error): only the addressees receive it
   * and only they can read it back from history; without `to` it is routed like any envelope.
   */
  emit(
    kind: Envelope['kind'],
    payload: Record<string, unknown>,
    options: { to?: string[]; correlationId?: string[] } = {},
  ): OutboundMessage {
    const envelope = {
      protocol: PROTOCOL_VERSION,
      id: randomUUID(),
      ts: new Date().toISOString(),
      from: GATEWAY_ID,
      ...(options.to ? { to: options.to } : {}),
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
      .map((m) => m.envelope);
  }
}
