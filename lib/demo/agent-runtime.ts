import { setTimeout as delay } from 'node:timers/promises';
import { MEWParticipant, type MEWParticipantOptions } from '../sdk/mew-participant';
import type { ChatMessage } from '../sdk/model/chat-slice';
import { ParticipantPausedError } from '../sdk/sdk-errors';
import { DEFAULT_FORGET_ENTRIES } from './demo-defaults';
import { WorkingContext } from './working-context';

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

/** Why an agent ended: the runner turns it into an exit code. */
export type AgentExit = 'stopped' | 'restart' | 'connection-refused' | 'crashed';

/** `active` runs; `paused` waits for a resume; `shutdown` idles, connected, until restarted or stopped. */
export type AgentState = 'active' | 'paused' | 'shutdown' | 'stopped';

export interface AgentRuntimeOptions extends AgentConnection {
  /** The context window reported as `max_tokens`; reaching it compacts automatically. */
  maxTokens: number;
  /** Keep only this many context entries (a steady context). */
  maxContextEntries?: number;
  /** The first context entry (the agent's role): what a fresh start begins with. */
  baseline: string;
  /** The short reply to a chat addressed to the agent (which may also act on it). */
  answerChat(chat: ChatMessage): string;
  /** Extra participant options (e.g. turning tool discovery off). */
  participant?: Partial<MEWParticipantOptions>;
  /** Where the runtime's own log lines go. @default console.log */
  log?: (message: string) => void;
}

/**
 * What the three demo agents share: a `MEWParticipant` whose controls act on a real `WorkingContext` (forget,
 * compact and clear shrink it; restart ends the agent so its process starts fresh; shutdown idles it while
 * staying connected), a pause gate the agent's loop waits on instead of sending envelopes the gateway would
 * refuse, chat answering, and status reports.
 *
 * @example
 * const runtime = new AgentRuntime({ gatewayUrl, space, token, maxTokens: 8000, baseline: 'I am a scribe', answerChat: () => 'On it.' });
 * await runtime.connect();
 * runtime.run(async () => {
 *   while (await runtime.sleep(1000)) await runtime.act(() => runtime.participant.chat.send('tick'));
 * });
 */
export class AgentRuntime {
  readonly participant: MEWParticipant;
  readonly context: WorkingContext;
  /** Resolves once, with why the agent ended. */
  readonly exited: Promise<AgentExit>;
  private resolveExit!: (exit: AgentExit) => void;
  private readonly abort = new AbortController();
  private shutDown = false;
  private readonly wakers = new Set<() => void>();
  private readonly log: (message: string) => void;

  constructor(private readonly options: AgentRuntimeOptions) {
    this.log = options.log ?? console.log;
    this.exited = new Promise((resolve) => (this.resolveExit = resolve));
    this.context = new WorkingContext({
      maxEntries: options.maxContextEntries,
      onChange: (size) => this.participant.telemetry.record(size),
    });
    this.participant = new MEWParticipant({
      gateway: options.gatewayUrl,
      space: options.space,
      token: options.token,
      telemetry: { maxTokens: options.maxTokens },
      hooks: {
        onForget: ({ direction, entries }) => {
          this.context.forget(direction, entries ?? DEFAULT_FORGET_ENTRIES);
          return this.context.size;
        },
        onCompact: () => {
          const freed = this.context.compact();
          return freed
            ? { freed_tokens: freed.freedTokens, freed_messages: freed.freedMessages, status: 'compacted' }
            : { skipped: true, reason: 'nothing old enough to summarise' };
        },
        onClear: () => {
          this.context.clear();
          return this.context.size;
        },
        onRestart: () => this.stop('restart'),
        onShutdown: () => this.idleUntilStopped(),
      },
      ...options.participant,
    });
    this.context.add('baseline', options.baseline);
    this.participant.on('pause', () => this.wake());
    this.participant.on('chat-queue', () => this.answerNextChat());
    this.participant.on('error', (error) => this.log(`sdk: ${error.message}`));
    // A final close (bad token, kicked, unknown space): reconnecting cannot help.
    this.participant.client.on('status', ({ status }) => status === 'error' && this.stop('connection-refused'));
  }

  get state(): AgentState {
    if (this.abort.signal.aborted) return 'stopped';
    if (this.shutDown) return 'shutdown';
    return this.participant.controls.pause ? 'paused' : 'active';
  }

  /** Connects, resolves once welcomed, and reports the initial status. */
  async connect(): Promise<void> {
    await this.participant.connect();
    this.reportStatus();
  }

  /** Runs the agent's loop; an unexpected throw ends the agent as `crashed` (its supervisor restarts it). */
  run(loop: () => Promise<void>): void {
    loop().catch((error: unknown) => {
      if (this.state === 'stopped') return; // pending calls fail when the connection closes: expected
      this.log(`crashed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      this.stop('crashed');
    });
  }

  /** Whether its work is parked waiting to become active again (paused or shut down): nothing is sent meanwhile. */
  get parked(): boolean {
    return this.wakers.size > 0;
  }

  /** Resolves true once the agent may act (not paused, not shut down), or false when it is stopping. */
  async waitUntilActive(): Promise<boolean> {
    while (this.state !== 'active') {
      if (this.state === 'stopped') return false;
      await new Promise<void>((resolve) => this.wakers.add(resolve));
    }
    return true;
  }

  /** Waits `ms`; false if the agent stopped meanwhile (loops use it as their condition). */
  async sleep(ms: number): Promise<boolean> {
    try {
      await delay(ms, undefined, { signal: this.abort.signal });
      return true;
    } catch {
      return false;
    }
  }

  /**
   * Sends something once the agent may: waits out a pause or shutdown, and retries if a pause lands between
   * the check and the send. Undefined if the agent stopped first.
   */
  async act<T>(send: () => T): Promise<T | undefined> {
    while (await this.waitUntilActive()) {
      try {
        return send();
      } catch (error) {
        if (!(error instanceof ParticipantPausedError)) throw error;
      }
    }
    return undefined;
  }

  /** Adds to the working context; reaching the window compacts it on its own and says so (spec §3.9.5). */
  remember(kind: string, text: string): void {
    this.context.add(kind, text);
    if (this.context.size.tokens < this.options.maxTokens) return;
    if (this.context.compact()) this.reportStatus('auto_compacted');
  }

  /** Records the latency of the latest step for the next status report. */
  recordLatency(ms: number): void {
    this.participant.telemetry.record({ latencyMs: ms });
  }

  /** Broadcasts `participant/status` (allowed even while paused or shut down); `status` defaults to the state. */
  reportStatus(status: string = this.state): void {
    try {
      this.participant.telemetry.report({ status });
    } catch (error) {
      this.log(`could not report status: ${(error as Error).message}`);
    }
  }

  /** Whether a participant is in the space right now. */
  isPresent(participantId: string): boolean {
    return this.participant.participants.some((peer) => peer.id === participantId);
  }

  /** Ends the agent: loops see `stopped`, the connection closes, `exited` resolves. Idempotent. */
  stop(exit: AgentExit = 'stopped'): void {
    if (this.abort.signal.aborted) return;
    this.abort.abort();
    this.wake();
    this.participant.disconnect();
    this.resolveExit(exit);
  }

  /**
   * Shutdown (spec §3.9.10): stop working but stay connected and visible as `shutdown`. The SDK disconnects
   * once this hook returns, so it returns only when the agent is stopped (a restart or the process ending).
   */
  private async idleUntilStopped(): Promise<void> {
    this.shutDown = true;
    this.wake();
    this.reportStatus();
    await this.exited;
  }

  /** Handles the oldest chat awaiting acknowledgement; acknowledging it re-emits the queue, which handles the next. */
  private answerNextChat(): void {
    const chat = this.participant.chat.pending()[0];
    if (!chat) return;
    this.remember('chat', `${chat.from}: ${chat.text}`);
    const reply = this.options.answerChat(chat);
    void this.act(() => this.participant.chat.send(reply, chat.from, { correlationId: [chat.id] })).then(
      (sent) => sent && this.remember('chat', `me: ${reply}`),
      (error: Error) => this.log(`could not reply to ${chat.from}: ${error.message}`),
    );
    try {
      this.participant.chat.acknowledge(chat.id);
    } catch (error) {
      this.log(`could not acknowledge a chat: ${(error as Error).message}`);
    }
  }

  private wake(): void {
    for (const wake of [...this.wakers]) wake();
    this.wakers.clear();
  }
}
