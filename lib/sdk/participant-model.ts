import type { CapabilityMessage, CapabilityPattern, CompiledCapabilities } from '../capabilities';
import { BoundedMap } from '../collections/bounded-map';
import type { AnyEnvelope } from '../protocol';
import { awaitsAckFrom, initialChat, reduceChat, type ChatMessage, type ChatState } from './model/chat-slice';
import { initialConnection, myWelcome, reduceConnection, type ConnectionState } from './model/connection-slice';
import { initialParticipants, reduceParticipants, type ParticipantState, type ParticipantsState } from './model/participants-slice';
import { initialProposals, reduceProposals, type Proposal, type ProposalsState } from './model/proposals-slice';
import { initialReasoning } from './model/reasoning-slice';
import type { ReduceContext } from './model/reduce-context';
import { resolveStoreConfig, type StoreConfig } from './model/store-defaults';
import { correlationIds, envelopeTime, isAddressedTo } from './model/store-envelope';
import { initialStreams, reduceStreams, type StreamInfo, type StreamsState } from './model/streams-slice';
import { initialTools, reduceTools, type ToolsState } from './model/tools-slice';
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
  proposals: Proposal[];
  /** What awaits my acknowledgement may have changed. */
  chatQueue: boolean;
  /** The open streams changed. */
  streams: boolean;
}

/** My receipts awaiting their echo; far more than one participant acknowledges between two echoes. */
const APPLIED_EARLY_CAP = 1000;
/** The chat kinds that can change what awaits my acknowledgement. */
const CHAT_KINDS: ReadonlySet<string> = new Set(['chat', 'chat/acknowledge', 'chat/cancel']);
// Reasoning threads are the control room's concern; the streams reducer only needs to find none.
const NO_REASONING = initialReasoning();

/**
 * A participant's model of its space: the slices of the space model (lib/sdk/model) that the SDK acts on —
 * participants and their effective capabilities, proposals (and the tools that give them their risk), streams,
 * and chats awaiting my acknowledgement — fed with every envelope the participant receives. The control room derives
 * its screens with the same reducers, so an agent and a dashboard never disagree. Slices only a screen needs (the
 * envelope log, telemetry series, reasoning threads) are left out, so an agent does not pay for them.
 *
 * @example
 * const model = new ParticipantModel();
 * const changes = model.observe(envelope, Date.now());
 * model.pendingProposals();
 */
export class ParticipantModel {
  private connection: ConnectionState = initialConnection(undefined, 0);
  private participants: ParticipantsState = initialParticipants();
  private tools: ToolsState = initialTools();
  private proposals: ProposalsState = initialProposals();
  private streams: StreamsState = initialStreams();
  private chat: ChatState;
  private seq = 0;
  // No deadline of our own (a proposal expires by its proposer), and only addressed chats are kept.
  private readonly config: StoreConfig = resolveStoreConfig({ proposalTimeoutMs: null, chatCap: 1 });
  private readonly compiled = new WeakMap<ParticipantState, CompiledCapabilities>();
  /** My receipts counted when sent, whose echoes must not count twice (bounded: an echo may never come). */
  private readonly appliedEarly = new BoundedMap<string, true>(APPLIED_EARLY_CAP);

  constructor() {
    this.chat = initialChat(this.config);
  }

  /** My participant id, from my welcome. */
  get me(): string | undefined {
    return this.connection.me;
  }

  /** Applies one envelope. */
  observe(envelope: AnyEnvelope, now: number): ModelChanges {
    const at = envelopeTime(envelope, now);
    const welcome = myWelcome(envelope, this.connection, at);
    const base = { now, at, seq: ++this.seq, config: this.config };
    this.connection = reduceConnection(this.connection, welcome, envelope, { ...base, me: this.connection.me });
    const ctx: ReduceContext = { ...base, me: this.connection.me };
    this.participants = reduceParticipants(this.participants, welcome, envelope, ctx);
    this.tools = reduceTools(this.tools, envelope, ctx);
    const proposals = this.applyProposals(envelope, ctx);
    const streamsBefore = this.streams;
    this.streams = reduceStreams(this.streams, welcome, envelope, ctx, NO_REASONING).streams;
    return { proposals, chatQueue: this.applyChat(envelope, ctx), streams: this.streams !== streamsBefore && envelope.kind !== 'stream/request' };
  }

  // ── Proposals ──

  proposal(id: string): Proposal | undefined {
    return this.proposals.byId.get(id);
  }

  /** Others' proposals still waiting for a decision, oldest first. */
  pendingProposals(): Proposal[] {
    return [...this.proposals.byId.values()].filter((p) => p.state === 'pending' && p.proposer !== this.me);
  }

  // ── Chats awaiting my acknowledgement ──

  pendingChats(): ChatMessage[] {
    const me = this.me;
    if (me === undefined) return [];
    return [...this.chat.addressed.values()].filter((m) => awaitsAckFrom(m, this.chat.receipts.get(m.id), me));
  }

  chatMessage(id: string): ChatMessage | undefined {
    return this.chat.addressed.get(id);
  }

  /** Counts my own acknowledgement or cancellation at once, before its echo, so a chat is never answered twice. */
  sentReceipt(envelope: AnyEnvelope, now: number): boolean {
    const changed = this.applyChat(envelope, { now, at: now, me: this.me, seq: ++this.seq, config: this.config });
    this.appliedEarly.set(envelope.id, true);
    return changed;
  }

  // ── Peers ──

  peer(id: string): Peer | undefined {
    const state = this.onlinePeer(id);
    return state && { id, capabilities: this.compile(state).patterns };
  }

  /** Everyone else who is online. */
  peers(): Peer[] {
    return [...this.participants.byId.keys()].map((id) => this.peer(id)).filter((peer): peer is Peer => peer !== undefined);
  }

  /** Whether the participant is online and its effective capabilities allow the message (the gateway's matcher). */
  allows(id: string, message: CapabilityMessage): boolean {
    const state = this.onlinePeer(id);
    return state !== undefined && this.compile(state).matches(message);
  }

  // ── Streams ──

  /** The streams open in the space. */
  activeStreams(): StreamInfo[] {
    return [...this.streams.byId.values()].filter((s) => !s.closed);
  }

  stream(id: string): StreamInfo | undefined {
    return this.streams.byId.get(id);
  }

  private applyProposals(envelope: AnyEnvelope, ctx: ReduceContext): Proposal[] {
    const ids = this.proposalsConcerned(envelope);
    const before = ids.map((id) => this.proposals.byId.get(id));
    this.proposals = reduceProposals(this.proposals, envelope, ctx, this.tools);
    const changed: Proposal[] = [];
    ids.forEach((id, i) => {
      const after = this.proposals.byId.get(id);
      if (after && after !== before[i] && after.proposer !== this.me) changed.push(after);
    });
    return changed;
  }

  /** The proposals an envelope may create or move: itself, what it correlates to, or what its fulfilment did. */
  private proposalsConcerned(envelope: AnyEnvelope): string[] {
    if (envelope.kind === 'mcp/proposal') return [envelope.id];
    const refs = correlationIds(envelope);
    if (envelope.kind === 'mcp/response') return refs.flatMap((ref) => this.proposals.byFulfilment.get(ref) ?? []);
    if (envelope.kind === 'chat') return refs.flatMap((ref) => this.proposals.byRejection.get(ref) ?? []);
    return [...refs];
  }

  private applyChat(envelope: AnyEnvelope, ctx: ReduceContext): boolean {
    if (!CHAT_KINDS.has(envelope.kind)) return false;
    if (this.appliedEarly.delete(envelope.id)) return false; // the echo of something `sentReceipt` already counted
    const before = this.chat.ackVersion;
    this.chat = reduceChat(this.chat, envelope, ctx);
    // Overheard chats between others are kept too, but never join my queue: rebuilding it for each would cost a
    // scan of every addressed chat per chat in a busy space.
    if (envelope.kind === 'chat' && (envelope.from === ctx.me || !isAddressedTo(envelope, ctx.me))) return false;
    return this.chat.ackVersion !== before;
  }

  private onlinePeer(id: string): ParticipantState | undefined {
    const state = this.participants.byId.get(id);
    return state?.online && id !== this.me ? state : undefined;
  }

  private compile(state: ParticipantState): CompiledCapabilities {
    let compiled = this.compiled.get(state);
    if (!compiled) this.compiled.set(state, (compiled = compileCapabilitiesSafely(state.effective.all)));
    return compiled;
  }
}
