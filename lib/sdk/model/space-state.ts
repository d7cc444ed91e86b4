import { BoundedMap } from '../../collections/bounded-map';
import { initialChat, type ChatState } from './chat-slice';
import { initialConnection, type ConnectionState } from './connection-slice';
import { initialLog, type LogState } from './envelope-log';
import { EMPTY_ERRORS, type ErrorsState } from './errors-slice';
import { EMPTY_SECURITY, type SecurityState } from './security-slice';
import { initialGrants, type GrantsState } from './grants-slice';
import { initialParticipants, type ParticipantsState } from './participants-slice';
import { initialProposals, type ProposalsState } from './proposals-slice';
import { initialReasoning, type ReasoningState } from './reasoning-slice';
import { resolveStoreConfig, type SpaceStoreOptions, type StoreConfig } from './store-defaults';
import { initialStreams, type StreamsState } from './streams-slice';
import { initialTelemetry, type TelemetryState } from './telemetry-slice';
import { initialTools, type ToolsState } from './tools-slice';

/**
 * The state of one space, derived only from the envelopes a participant sees: what `ParticipantModel` keeps live
 * and the control room's store publishes.
 *
 * Change detection: a slice object is replaced whenever anything in it changes and keeps its identity otherwise,
 * so `===` on a slice (or on an entity such as a `Proposal`, which is immutable) tells a subscriber whether to
 * re-render. The collections inside slices (`Map`s, rings, the seen-id set) are updated in place so ingestion stays
 * O(1) whatever their size: treat them as read-only, and apply each envelope to the latest state only (a state is
 * single-owner; an older snapshot shares those collections).
 */
export interface SpaceState {
  config: StoreConfig;
  /** Ids already applied (idempotent re-ingest); bounded by `config.seenIdsCap`; none without `config.screen`. */
  seen?: BoundedMap<string, true>;
  /** Envelopes applied so far (the last `seq`). */
  seq: number;
  /** The time of the last `tick` (epoch ms), for countdowns. */
  clock: number;
  connection: ConnectionState;
  participants: ParticipantsState;
  grants: GrantsState;
  telemetry: TelemetryState;
  tools: ToolsState;
  proposals: ProposalsState;
  reasoning: ReasoningState;
  streams: StreamsState;
  chat: ChatState;
  log: LogState;
  errors: ErrorsState;
  security: SecurityState;
}

/** A fresh state; `now` starts the clock. */
export function createSpaceState(options: SpaceStoreOptions = {}, now = 0): SpaceState {
  const config = resolveStoreConfig(options);
  return {
    config,
    seen: config.seenIdsCap > 0 ? new BoundedMap<string, true>(config.seenIdsCap) : undefined,
    seq: 0,
    clock: now,
    connection: initialConnection(options.me, now),
    participants: initialParticipants(),
    grants: initialGrants(),
    telemetry: initialTelemetry(),
    tools: initialTools(),
    proposals: initialProposals(),
    reasoning: initialReasoning(),
    streams: initialStreams(),
    chat: initialChat(config),
    log: initialLog(config.logCap),
    errors: EMPTY_ERRORS,
    security: EMPTY_SECURITY,
  };
}
