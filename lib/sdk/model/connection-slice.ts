import type { ActiveStream, WireCapability, ParticipantInfo } from '../../protocol';
import type { ReduceContext } from './reduce-context';
import { isAddressedTo, type StoreEnvelope } from './store-envelope';

/** Same values as the SDK's client status: `ready` means the welcome has arrived. */
export type ConnectionStatus = 'disconnected' | 'connecting' | 'connected' | 'ready' | 'error';

/** Every connection status, in lifecycle order. */
export const CONNECTION_STATUSES = ['disconnected', 'connecting', 'connected', 'ready', 'error'] as const satisfies readonly ConnectionStatus[];

/** The browser participant's own connection, as the transport reports it and the welcome confirms it. */
export interface ConnectionState {
  status: ConnectionStatus;
  /** Why (close reason, error text), as given to `setConnection`. */
  detail?: string;
  /** When `status` last changed (epoch ms). */
  since: number;
  /** My participant id: from the options, else from the first welcome addressed to me. */
  me?: string;
  /** My authoritative capabilities: from the latest welcome addressed to me (a later one replaces them). */
  capabilities: readonly WireCapability[];
  /** Id of that welcome. */
  welcomeId?: string;
  /** When it arrived (its `ts`). */
  welcomedAt?: number;
}

/** The parts of a welcome the slices use. */
export interface Welcome {
  you: ParticipantInfo & { capabilities: WireCapability[] };
  participants: ParticipantInfo[];
  activeStreams: ActiveStream[];
}

/** The initial connection state. */
export function initialConnection(me: string | undefined, now: number): ConnectionState {
  return { status: 'disconnected', since: now, me, capabilities: [] };
}

/**
 * The welcome in `envelope` if it is mine and current: with `me` known, its `you.id` must be me; before that, the
 * first welcome whose `to` names its `you.id` (or has no `to`) tells me who I am. The gateway targets welcomes, so
 * others' are not normally seen; this guards against a gateway that broadcasts them. A welcome older than the one
 * applied (replayed by a history catch-up) is ignored: it would bring back stale capabilities and participants.
 */
export function myWelcome(envelope: StoreEnvelope, connection: ConnectionState, at: number): Welcome | undefined {
  if (envelope.kind !== 'system/welcome') return undefined;
  if (connection.welcomedAt !== undefined && at < connection.welcomedAt) return undefined;
  const me = connection.me;
  const { you, participants, active_streams: activeStreams = [] } = envelope.payload;
  if (me !== undefined ? you.id !== me : envelope.to !== undefined && envelope.to.length > 0 && !isAddressedTo(envelope, you.id)) {
    return undefined;
  }
  return { you, participants, activeStreams };
}

/** Applies a welcome addressed to me: learn who I am and what I may do; being welcomed means `ready`. */
export function reduceConnection(state: ConnectionState, welcome: Welcome | undefined, envelope: StoreEnvelope, ctx: ReduceContext): ConnectionState {
  if (!welcome) return state;
  return {
    ...state,
    me: welcome.you.id,
    capabilities: welcome.you.capabilities,
    welcomeId: envelope.id,
    welcomedAt: ctx.at,
    status: 'ready',
    detail: undefined,
    since: state.status === 'ready' ? state.since : ctx.now,
  };
}

/** Records a transport status change (the store's `setConnection`). */
export function setConnectionStatus(state: ConnectionState, status: ConnectionStatus, detail: string | undefined, now: number): ConnectionState {
  if (state.status === status && state.detail === detail) return state;
  return { ...state, status, detail, since: state.status === status ? state.since : now };
}
