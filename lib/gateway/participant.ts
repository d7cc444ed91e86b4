import { compileCapabilities, type CapabilityPattern, type CompiledCapabilities } from '../capabilities';
import type { OutboundMessage } from './outbound-message';
import type { PauseRecord } from './persistence/space-records';
import { TokenBucket } from './token-bucket';

/** How the gateway reaches one live connection; implemented by each transport (ws, tests). */
export interface Connection {
  /** Queues the message for this peer. Never throws; a dead or slow peer is the transport's to drop. */
  deliver(message: OutboundMessage): void;
  /** Closes the connection with a WebSocket close code and a human reason. */
  close(code: number, reason: string): void;
}

export type RoutingMode = 'broadcast' | 'directed';

/** A routing mode as text names it (`?routing=`, a cluster node's forwarded attach); anything else is undefined. */
export function routingModeOf(value: string | null | undefined): RoutingMode | undefined {
  return value === 'directed' || value === 'broadcast' ? value : undefined;
}

/** One live connection of a participant (a tab, a device), with the routing mode it asked for. */
export interface Link {
  connection: Connection;
  routing: RoutingMode;
  connectedAt: Date;
}

/**
 * A participant of a space: identity, effective capabilities (compiled once per change) and its live connections.
 * One participant may be connected from several tabs or devices at once: each receives what the participant may
 * see, any may act, and presence counts the participant once. Rate limit, pause and shutdown are the participant's.
 */
export class Participant {
  private _capabilities: CapabilityPattern[] = [];
  private _compiled!: CompiledCapabilities;
  /** Its live connections, oldest first; an array so delivery is a plain loop. */
  links: readonly Link[] = [];
  readonly rate: TokenBucket;
  paused?: PauseRecord;
  /** Set by `participant/shutdown`; cleared when the participant joins again. */
  shutdown?: { by: string; envelopeId: string };

  constructor(
    readonly id: string,
    /** What the config (or the invite) gives, before runtime revocations and grants. */
    readonly baseCapabilities: CapabilityPattern[],
    /** The routing mode from the space config; a connection may opt into another for its lifetime. */
    readonly defaultRouting: RoutingMode,
    rate: { ratePerSecond: number; rateBurst: number },
    /** Who invited this participant at run time; undefined for participants of the config. */
    readonly invitedBy?: string,
  ) {
    this.capabilities = baseCapabilities;
    this.rate = new TokenBucket(rate.ratePerSecond, rate.rateBurst);
  }

  get capabilities(): CapabilityPattern[] {
    return this._capabilities;
  }

  /** Replaces the effective set and recompiles it: the only place patterns are compiled. */
  set capabilities(list: CapabilityPattern[]) {
    this._capabilities = list;
    this._compiled = compileCapabilities(list);
  }

  get compiled(): CompiledCapabilities {
    return this._compiled;
  }

  get online(): boolean {
    return this.links.length > 0;
  }

  /** When its oldest live connection opened. */
  get connectedAt(): Date | undefined {
    return this.links[0]?.connectedAt;
  }

  /** Whether any of its connections is in directed mode: the space then follows its conversations (`Space.route`). */
  get hasDirectedLink(): boolean {
    for (const link of this.links) if (link.routing === 'directed') return true;
    return false;
  }

  /**
   * Delivers a routed message to each of its connections that receives it; `inConversation`: the message answers
   * something this participant sent (directly or down a chain of correlations), which directed connections receive too.
   */
  deliver(message: OutboundMessage, envelope: { from: string; to?: readonly string[] }, inConversation = false): void {
    for (const link of this.links) if (inConversation || this.receives(envelope, link.routing)) link.connection.deliver(message);
  }

  /** The pause in force at `now`, dropping one whose timeout has lapsed. */
  activePause(now = Date.now()): PauseRecord | undefined {
    if (this.paused?.until !== undefined && this.paused.until <= now) this.paused = undefined;
    return this.paused;
  }

  /** Whether an envelope routed in the space reaches a connection with this routing mode (its own echo always does). */
  receives(envelope: { from: string; to?: readonly string[] }, routing: RoutingMode): boolean {
    if (routing === 'broadcast' || envelope.from === this.id) return true;
    const to = envelope.to;
    return !to || to.length === 0 || to.includes(this.id);
  }
}
