import type { CapabilityMessage, CapabilityPattern, CompiledCapabilities } from '../capabilities';
import type { AnyEnvelope } from '../protocol';
import { initialConnection, myWelcome, reduceConnection, type ConnectionState } from './model/connection-slice';
import { initialParticipants, reduceParticipants, type ParticipantState, type ParticipantsState } from './model/participants-slice';
import type { ReduceContext } from './model/reduce-context';
import { resolveStoreConfig, type StoreConfig } from './model/store-defaults';
import { envelopeTime } from './model/store-envelope';
import { compileCapabilitiesSafely } from './safe-capabilities';

/** Another participant of the space, as far as I know it. */
export interface Peer {
  id: string;
  /** Effective capabilities: what the gateway announced, plus grants I saw, minus revocations I saw. */
  capabilities: readonly CapabilityPattern[];
}

/**
 * Who else is in the space and what each may send: the space model's participants reducer (welcome, presence, and
 * the grants and revocations routed past me, which took effect since the gateway accepted them), the one the control
 * room shows. Capabilities are compiled with the gateway's own matcher, once per change of a participant.
 *
 * @example
 * const peers = new PeersView();
 * peers.observe(welcomeEnvelope, Date.now());
 * peers.allows('ops', { kind: 'participant/pause', payload: {} });
 */
export class PeersView {
  private participants: ParticipantsState = initialParticipants();
  private connection: ConnectionState = initialConnection(undefined, 0);
  private seq = 0;
  private readonly config: StoreConfig = resolveStoreConfig();
  private readonly compiled = new WeakMap<ParticipantState, CompiledCapabilities>();

  /** Applies one envelope. */
  observe(envelope: AnyEnvelope, now: number): void {
    const at = envelopeTime(envelope, now);
    const welcome = myWelcome(envelope, this.connection, at);
    const ctx: ReduceContext = { now, at, me: this.connection.me, seq: ++this.seq, config: this.config };
    this.connection = reduceConnection(this.connection, welcome, envelope, ctx);
    this.participants = reduceParticipants(this.participants, welcome, envelope, { ...ctx, me: this.connection.me });
  }

  get(id: string): Peer | undefined {
    const state = this.online(id);
    return state && { id, capabilities: this.compile(state).patterns };
  }

  /** Everyone else who is online. */
  list(): Peer[] {
    return [...this.participants.byId.keys()].map((id) => this.get(id)).filter((peer): peer is Peer => peer !== undefined);
  }

  /** Whether the participant is online and its capabilities allow the message. */
  allows(id: string, message: CapabilityMessage): boolean {
    const state = this.online(id);
    return state !== undefined && this.compile(state).matches(message);
  }

  private online(id: string): ParticipantState | undefined {
    const state = this.participants.byId.get(id);
    return state?.online && id !== this.connection.me ? state : undefined;
  }

  private compile(state: ParticipantState): CompiledCapabilities {
    let compiled = this.compiled.get(state);
    if (!compiled) this.compiled.set(state, (compiled = compileCapabilitiesSafely(state.effective.all)));
    return compiled;
  }
}
