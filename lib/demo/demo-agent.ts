import { AgentRuntime } from '../sdk/agent/agent-runtime';
import { estimateTokens } from '../sdk/agent/working-context';
import type { ChatMessage } from '../sdk/model/chat-slice';
import { COMPACT_KEEP_NEWEST, COMPACT_SUMMARY_MAX_CHARS, DEMO_COMPACTION_RATIO } from './demo-defaults';

/** Where and as whom an agent connects. */
export interface AgentConnection {
  /** The gateway's WebSocket endpoint, `ws://host:port/ws`. */
  gatewayUrl: string;
  space: string;
  /** The agent's bearer token (its identity comes from it, never from the agent). */
  token: string;
}

/** What every demo agent is started with. */
export interface DemoAgentOptions extends AgentConnection {
  /** Holds `<space>/sandbox`, the `files` server's root. */
  dataDir: string;
  /** Base gap between steps. @default DEFAULT_PACE_MS */
  paceMs?: number;
  /** Where the agent's own log lines go. @default console.log */
  log?: (message: string) => void;
}

/** What makes one demo agent itself. */
export interface DemoAgentRole {
  /** The context window reported as `max_tokens`; passing it compacts automatically. */
  maxTokens: number;
  /** Keep only this many notes (a steady context). */
  maxContextEntries?: number;
  /** The first note (the agent's role): what a fresh start begins with. */
  baseline: string;
  /** The short reply to a chat addressed to the agent (which may also act on it). */
  answerChat(chat: ChatMessage): string;
}

/** One remembered item of a scripted agent: a task, a thought, a result, a chat, or a summary of older notes. */
export interface ContextNote {
  kind: string;
  text: string;
}

/**
 * What the demo's scripted agents share on top of the agent runtime: notes as their working context (with a
 * deterministic summary standing in for a model's), and chat answering. Their loops are their own (`scribe-agent.ts`,
 * `auditor-agent.ts`).
 *
 * @example
 * const agent = new DemoAgent({ gatewayUrl, space, token, dataDir, maxTokens: 8000, baseline: 'I am a scribe', answerChat: () => 'On it.' });
 * await agent.connect();
 * agent.remember('thought', 'The retro needs notes');
 */
export class DemoAgent extends AgentRuntime<ContextNote> {
  private readonly answerChat: (chat: ChatMessage) => string;

  constructor({ gatewayUrl, space, token, log, maxTokens, maxContextEntries, baseline, answerChat }: DemoAgentOptions & DemoAgentRole) {
    super({
      gateway: gatewayUrl,
      space,
      token,
      maxTokens,
      compactionRatio: DEMO_COMPACTION_RATIO,
      context: { tokens: (note) => estimateTokens(note.text), summarise: summariseNotes, keepNewest: COMPACT_KEEP_NEWEST, maxEntries: maxContextEntries },
      log,
    });
    this.answerChat = answerChat;
    this.remember('baseline', baseline);
    this.on('chat-queue', () => this.answerNextChat());
    this.on('error', (error) => this.log(`sdk: ${error.message}`));
  }

  /** Adds a note; a full window compacts the context by itself. */
  remember(kind: string, text: string): void {
    this.context.add({ kind, text });
    void this.ensureHeadroom();
  }

  /** Whether a participant is in the space right now. */
  isPresent(participantId: string): boolean {
    return this.participants.some((peer) => peer.id === participantId);
  }

  /** Handles the oldest chat awaiting acknowledgement; acknowledging it re-emits the queue, which handles the next. */
  private answerNextChat(): void {
    const chat = this.chat.pending()[0];
    if (!chat) return;
    this.remember('chat', `${chat.from}: ${chat.text}`);
    const reply = this.answerChat(chat);
    void this.act(() => this.chat.send(reply, chat.from, { correlationId: [chat.id] })).then(
      (sent) => sent && this.remember('chat', `me: ${reply}`),
      (error: Error) => this.log(`could not reply to ${chat.from}: ${error.message}`),
    );
    try {
      this.chat.acknowledge(chat.id);
    } catch (error) {
      this.log(`could not acknowledge a chat: ${(error as Error).message}`);
    }
  }
}

/** A deterministic stand-in for a model's summary: counts by kind plus the start of the latest results. */
export function summariseNotes(notes: readonly ContextNote[]): ContextNote {
  const counts = new Map<string, number>();
  for (const note of notes) counts.set(note.kind, (counts.get(note.kind) ?? 0) + 1);
  const tally = [...counts].map(([kind, n]) => `${n} ${kind}`).join(', ');
  const highlights = notes
    .filter((note) => note.kind === 'result')
    .slice(-3)
    .map((note) => note.text.split(/[.\n]/)[0]);
  const text = `Summary of ${notes.length} earlier entries (${tally}).${highlights.length ? ` Latest results: ${highlights.join('; ')}.` : ''}`;
  return { kind: 'summary', text: text.length > COMPACT_SUMMARY_MAX_CHARS ? `${text.slice(0, COMPACT_SUMMARY_MAX_CHARS - 1)}…` : text };
}
