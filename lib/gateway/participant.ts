import { compileCapabilities, type CapabilityPattern, type CompiledCapabilities } from '../capabilities';
import type { OutboundMessage } from './outbound-message';
import { TokenBucket } from './token-bucket';

/** How the gateway reaches one live connection; implemented by each transport (ws, tests). */
export interface Connection {
  /** Queues the message for this peer. Never throws; a dead or slow peer is the transport's to drop. */
  deliver(message: OutboundMessage): void;
  /** Closes the connection with a WebSocket close code and a human reason. */
  close(code: number, reason: string): void;
}

export type RoutingMode = 'broadcast' | 'directed';

/** A participant of a space: identity, effective capabilities (compiled once per change) and its live connection. */
export class Participant {
  private _capabilities: CapabilityPattern[] = [];
  private _compiled!: CompiledCapabilities;
  connection?: Connection;
  connectedAt?: Date;
  readonly rate: TokenBucket;
  routing: RoutingMode;

  constructor(
    readonly id: string,
    capabilities: CapabilityPattern[],
    /** The routing mode from the space config; a connection may opt into another for its lifetime. */
    readonly defaultRouting: RoutingMode,
    rate: { ratePerSecond: number; rateBurst: number },
  ) {
    this.capabilities = capabilities;
    this.routing = defaultRouting;
    this.rate = new TokenBucket(rate.ratePerSecond, rate.rateBurst);
  }

  get capabilities(): CapabilityPattern[] {
    return this._capabilities;
  }

  set capabilities(list: CapabilityPattern[]) {
    this._capabilities = list;
    this._compiled = compileCapabilities(list);
  }

  get compiled(): CompiledCapabilities {
    return this._compiled;
  }

  get online(): boolean {
    return this.connection !== undefined;
  }

  /** Whether an envelope routed in the space reaches this participant, given its routing mode (its own echo always does). */
  receives(envelope: { from: string; to?: readonly string[] }): boolean {
    if (this.routing === 'broadcast' || envelope.from === this.id) return true;
    const to = envelope.to;
    return !to || to.length === 0 || to.includes(this.id);
  }
}
