import type { CapabilityMessage, CapabilityPattern, CompiledCapabilities } from '../capabilities';
import { BoundedMap } from '../collections/bounded-map';
import type { AnyEnvelope } from '../protocol';
import { applyInto, isStreamFrame, tickInto, type SpaceInput } from './model/apply-envelope';
import type { ChatMessage } from './model/chat-slice';
import { setConnectionStatus, type ConnectionStatus } from './model/connection-slice';
import type { ErrorNotice } from './model/errors-slice';
import type { ParticipantState } from './model/participants-slice';
import { pendingProposals } from './model/proposal-selectors';
import type { Proposal } from './model/proposals-slice';
import { activeStreams, awaitingMyAck } from './model/space-selectors';
import { createSpaceState, type SpaceState } from './model/space-state';
import type { SpaceStoreOptions, StoreConfig } from './model/store-defaults';
import { correlationIds, isAddressedTo, isStoreEnvelope } from './model/store-envelope';
import type { StreamInfo } from './model/streams-slice';
import { compileCapabilitiesSafely } from './safe-capabilities';

/** Another participant of the space, as far as I know it. */
export interface Peer {
  id: string;
  /** Effective capabilities: what the gateway announced, plus grants I saw, minus revocations I saw. */
  capabilities: readonly CapabilityPattern[];
}

/** What one envelope changed that the participant tells its listeners about. */
export interface ModelChanges {
  /** Others' proposals it created or moved along. */
  proposals: readonly Proposal[];
  /** What awaits my acknowledgement may have changed. */
  chatQueue: boolean;
  /** The open streams changed. */
  streams: boolean;
}

const NO_PROPOSALS: readonly Proposal[] = [];
const NO_IDS: readonly string[] = [];
const NO_CHANGES: ModelChanges = { proposals: NO_PROPOSALS, chatQueue: false, streams: false };
/** My receipts awaiting their echo; far more than one participant acknowledges between two echoes. */
const APPLIED_EARLY_CAP = 1000;
/** The kinds that can create or move a proposal (see `proposalsConcerned`). */
const PROPOSAL_KINDS: ReadonlySet<string> = new Set(['mcp/proposal', 'mcp/request', 'mcp/response', 'mcp/reject', 'mcp/withdraw', 'chat']);

/**
 * The space model a participant keeps live, one per participant: the space state of lib/sdk/model (pure reducers,
 * one configuration), every envelope applied in place the moment it arrives. The SDK's views read it (peers and
 * their effective capabilities, proposals, streams, chats awaiting me), and so does the control room: its store is a
 * batched view of the browser participant's model (`createSpaceStore({ model })`), so a card and
 * `participant.proposals.pending()` read one state and never disagree, on expiry or anything else. Time moves only by
 * `tick` (the participant's expiry timer, or the store's clock), and whoever ticks, expiries reach `onExpire`.
 *
 * @example
 * const model = new ParticipantModel({ screen: false }, (expired) => console.log(expired.map((p) => p.id)));
 * const changes = model.observe(envelope, Date.now());
 * model.pendingProposals();
 */
export class ParticipantModel {
  readonly config: StoreConfig;
  private readonly live: SpaceState;
  private changes = 0;
  private readonly compiled = new WeakMap<ParticipantState, CompiledCapabilities>();
  /** My receipts applied when sent, whose echoes must not count twice (bounded: an echo may never come). */
  private readonly appliedEarly = new BoundedMap<string, true>(APPLIED_EARLY_CAP);

  constructor(
    options: SpaceStoreOptions = {},
    /** Others' proposals the clock expired, whoever ticked it. */
    private readonly onExpire?: (proposals: readonly Proposal[]) => void,
  ) {
    this.live = createSpaceState(options, (options.now ?? Date.now)());
    this.config = this.live.config;
  }

  /**
   * The live state, for the selectors of lib/sdk/model: read it, never write it. It changes in place as envelopes
   * arrive (a store publishes copies); `version` moves whenever it does.
   */
  get state(): SpaceState {
    return this.live;
  }

  get version(): number {
    return this.changes;
  }

  /** My participant id, from my welcome. */
  get me(): string | undefined {
    return this.live.connection.me;
  }

  /** Applies one envelope or stream frame; what it changed that the participant reports. */
  observe(input: SpaceInput, now: number): ModelChanges {
    if (!isStoreEnvelope(input)) {
      if (isStreamFrame(input) && applyInto(this.live, input, now)) this.changes++;
      return NO_CHANGES;
    }
    if (this.appliedEarly.delete(input.id)) return NO_CHANGES; // the echo of something `sentReceipt` applied
    const ids = this.proposalsConcerned(input);
    const before = ids.length > 0 ? ids.map((id) => this.live.proposals.byId.get(id)) : undefined;
    const { ackVersion } = this.live.chat;
    const streamsBefore = this.live.streams;
    if (!applyInto(this.live, input, now)) return NO_CHANGES;
    this.changes++;
    const me = this.me;
    let proposals: Proposal[] | undefined;
    ids.forEach((id, i) => {
      const after = this.live.proposals.byId.get(id);
      if (after && after !== before?.[i] && after.proposer !== me) (proposals ??= []).push(after);
    });
    // Overheard chats between others are kept too, but never join my queue: rebuilding it for each would cost a
    // scan of every addressed chat per chat in a busy space.
    const overheard = input.kind === 'chat' && (input.from === me || !isAddressedTo(input, me));
    const chatQueue = this.live.chat.ackVersion !== ackVersion && !overheard;
    const streams = this.live.streams !== streamsBefore && input.kind !== 'stream/request';
    return proposals || chatQueue || streams ? { proposals: proposals ?? NO_PROPOSALS, chatQueue, streams } : NO_CHANGES;
  }

  /** Moves time to `now`: pending proposals past their deadline expire (told to `onExpire`), pauses lift. */
  tick(now: number): void {
    const expired = tickInto(this.live, now);
    this.changes++;
    const me = this.me;
    const others = expired.filter((p) => p.proposer !== me);
    if (others.length > 0) this.onExpire?.(others);
  }

  /** Records the transport's status; my welcome sets `ready` by itself. */
  setConnection(status: ConnectionStatus, detail: string | undefined, now: number): void {
    const connection = setConnectionStatus(this.live.connection, status, detail, now);
    if (connection === this.live.connection) return;
    this.live.connection = connection;
    this.changes++;
  }

  /** Returns the gateway errors queued for toasts and empties the queue, so each is shown once. */
  takeErrors(): readonly ErrorNotice[] {
    const { queue } = this.live.errors;
    if (queue.length > 0) {
      this.live.errors = { ...this.live.errors, queue: [] };
      this.changes++;
    }
    return queue;
  }

  /** No pending proposal expires before this (epoch ms; Infinity when none can). */
  get nextExpiry(): number {
    return this.live.proposals.nextExpiry;
  }

  // ── Proposals ──

  proposal(id: string): Proposal | undefined {
    return this.live.proposals.byId.get(id);
  }

  /** Others' proposals still waiting for a decision, oldest first: the control room's queue without mine. */
  pendingProposals(): Proposal[] {
    const me = this.me;
    return pendingProposals(this.live).filter((p) => p.proposer !== me);
  }

  // ── Chats awaiting my acknowledgement ──

  /** The control room's acknowledgement queue, oldest first. */
  pendingChats(): ChatMessage[] {
    return [...awaitingMyAck(this.live)];
  }

  chatMessage(id: string): ChatMessage | undefined {
    return this.live.chat.addressed.get(id);
  }

  /**
   * Applies my own acknowledgement or cancellation at once, before its echo (which is then skipped), so a chat is
   * never answered twice. Returns whether the chats awaiting me changed.
   */
  sentReceipt(envelope: AnyEnvelope, now: number): boolean {
    const { chatQueue } = this.observe(envelope, now);
    this.appliedEarly.set(envelope.id, true);
    return chatQueue;
  }

  // ── Peers ──

  peer(id: string): Peer | undefined {
    const state = this.onlinePeer(id);
    return state && { id, capabilities: this.compile(state).patterns };
  }

  /** Everyone else who is online. */
  peers(): Peer[] {
    return [...this.live.participants.byId.keys()].map((id) => this.peer(id)).filter((peer): peer is Peer => peer !== undefined);
  }

  /** Whether the participant is online and its effective capabilities allow the message (the gateway's matcher). */
  allows(id: string, message: CapabilityMessage): boolean {
    const state = this.onlinePeer(id);
    return state !== undefined && this.compile(state).matches(message);
  }

  // ── Streams ──

  /** The streams open in the space, oldest first. */
  activeStreams(): StreamInfo[] {
    return [...activeStreams(this.live)];
  }

  stream(id: string): StreamInfo | undefined {
    return this.live.streams.byId.get(id);
  }

  /** The proposals an envelope may create or move: itself, what it correlates to, or what its fulfilment did. */
  private proposalsConcerned(envelope: AnyEnvelope): readonly string[] {
    if (!PROPOSAL_KINDS.has(envelope.kind)) return NO_IDS;
    if (envelope.kind === 'mcp/proposal') return [envelope.id];
    const refs = correlationIds(envelope);
    if (refs.length === 0) return NO_IDS;
    const { byFulfilment, byRejection } = this.live.proposals;
    if (envelope.kind === 'mcp/response') return refs.flatMap((ref) => byFulfilment.get(ref) ?? []);
    if (envelope.kind === 'chat') return refs.flatMap((ref) => byRejection.get(ref) ?? []);
    return refs;
  }

  private onlinePeer(id: string): ParticipantState | undefined {
    const state = this.live.participants.byId.get(id);
    return state?.online && id !== this.me ? state : undefined;
  }

  private compile(state: ParticipantState): CompiledCapabilities {
    let compiled = this.compiled.get(state);
    if (!compiled) this.compiled.set(state, (compiled = compileCapabilitiesSafely(state.effective.all)));
    return compiled;
  }
}
