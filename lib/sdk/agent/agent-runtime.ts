import type { ParticipantCompactDonePayload, ParticipantForgetPayload } from '../../protocol';
import type { ContextUsage } from '../context-telemetry';
import { MEWParticipant, type ControlHooks, type MEWParticipantOptions } from '../mew-participant';
import { ParticipantPausedError } from '../sdk-errors';
import { COMPACTION_TRIGGER_RATIO, DEFAULT_FORGET_ENTRIES } from './agent-options';
import { WorkingContext, type ContextFreed, type ContextSize, type WorkingContextOptions } from './working-context';

/** Why an agent ended: a runner turns it into its exit code (`participant/restart` asks for a fresh process). */
export type AgentExit = 'stopped' | 'restart' | 'connection-refused' | 'crashed';

/** `active` works; `paused` waits for a resume; `shutdown` idles, connected, until restarted or stopped. */
export type AgentState = 'active' | 'paused' | 'shutdown' | 'stopped';

export interface AgentRuntimeOptions<T> extends MEWParticipantOptions {
  /** The context window, reported as `max_tokens`. */
  maxTokens: number;
  /** `ensureHeadroom` compacts past this share of `maxTokens`. @default COMPACTION_TRIGGER_RATIO */
  compactionRatio?: number;
  /** What the working context holds, and how it is measured and summarised. */
  context: WorkingContextOptions<T>;
  /** Where the runtime's own log lines go. @default console.log */
  log?: (line: string) => void;
}

/**
 * The one agent runtime: a participant whose controls act on its real `WorkingContext` (forget, compact and clear
 * shrink it; restart ends the agent so its process starts fresh; shutdown idles it, connected, until it stops), a
 * pause gate its work waits on instead of sending what the gateway would refuse, and status reports of what the context
 * holds. `hooks` given in the options run after the runtime's own reaction (before it, for restart and shutdown).
 * MEWAgent is this runtime with a ReAct loop over a model; the demo's scripted agents drive it from their own loops.
 *
 * @example
 * const agent = new AgentRuntime({ gateway, space, token, maxTokens: 8000, context: { tokens: estimateTokens, summarise: (notes) => notes.join(' ') } });
 * await agent.connect();
 * agent.run(async () => {
 *   while ((await agent.sleep(1000)) && (await agent.waitUntilActive())) await agent.act(() => agent.chat.send('tick'));
 * });
 * console.log(await agent.exited); // 'restart' after a participant/restart
 */
export class AgentRuntime<T> extends MEWParticipant {
  readonly context: WorkingContext<T>;
  /** Resolves once, with why the agent ended. */
  readonly exited: Promise<AgentExit>;
  protected readonly log: (line: string) => void;
  private resolveExit!: (exit: AgentExit) => void;
  private readonly stopping = new AbortController();
  private readonly maxTokens: number;
  private readonly compactionRatio: number;
  private shutDown = false;
  private compacting = false;
  private readonly wakers = new Set<() => void>();
  /** A model's own count of the context, valid while the context has not shrunk since. */
  private counted?: { tokens: number; generation: number };

  constructor({ maxTokens, compactionRatio = COMPACTION_TRIGGER_RATIO, context, log = console.log, hooks, ...options }: AgentRuntimeOptions<T>) {
    // The hooks need `this`, which super() must create first; they only run once connected, when it is set.
    let self: AgentRuntime<T> | undefined;
    super({ ...options, telemetry: { maxTokens, ...options.telemetry }, hooks: AgentRuntime.controlHooks(hooks, () => self!) });
    self = this;
    this.maxTokens = maxTokens;
    this.compactionRatio = compactionRatio;
    this.log = log;
    this.exited = new Promise((resolve) => (this.resolveExit = resolve));
    this.context = new WorkingContext({ ...context, onChange: () => this.telemetry.record(this.usage) });
    this.on('pause', () => this.wake());
    // A final close (bad token, kicked, unknown space): reconnecting cannot help.
    this.client.on('status', ({ status }) => status === 'error' && this.stop('connection-refused'));
  }

  get state(): AgentState {
    if (this.stopping.signal.aborted) return 'stopped';
    if (this.shutDown) return 'shutdown';
    return this.controls.pause ? 'paused' : 'active';
  }

  /** What the context holds: the model's own token count while it is current, else the estimate. */
  get usage(): ContextSize {
    const { tokens, messages } = this.context.size;
    return { tokens: this.counted?.generation === this.context.generation ? this.counted.tokens : tokens, messages };
  }

  /** Connects, resolves once welcomed, and reports the initial status. */
  override async connect(): Promise<void> {
    await super.connect();
    this.reportStatus();
  }

  /** Runs the agent's own loop; an unexpected throw ends the agent as `crashed` (its supervisor restarts it). */
  run(loop: () => Promise<void>): void {
    loop().catch((error: unknown) => {
      if (this.state === 'stopped') return; // pending calls fail when the connection closes: expected
      this.log(`crashed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      this.stop('crashed');
    });
  }

  /** Whether work is parked waiting to become active again (paused or shut down): nothing is sent meanwhile. */
  get parked(): boolean {
    return this.wakers.size > 0;
  }

  /** Resolves true once the agent may act (not paused, not shut down); false when it stops or `signal` aborts first. */
  async waitUntilActive(signal?: AbortSignal): Promise<boolean> {
    while (this.state !== 'active') {
      if (this.state === 'stopped' || signal?.aborted) return false;
      await new Promise<void>((resolve) => {
        const wake = () => {
          signal?.removeEventListener('abort', wake);
          this.wakers.delete(wake);
          resolve();
        };
        this.wakers.add(wake);
        signal?.addEventListener('abort', wake, { once: true });
      });
    }
    return true;
  }

  /** Waits `ms`; false if the agent stopped meanwhile (loops use it as their condition). */
  sleep(ms: number): Promise<boolean> {
    const { signal } = this.stopping;
    if (signal.aborted) return Promise.resolve(false);
    return new Promise((resolve) => {
      const stopped = () => {
        clearTimeout(timer);
        resolve(false);
      };
      const timer = setTimeout(() => {
        signal.removeEventListener('abort', stopped);
        resolve(true);
      }, ms);
      signal.addEventListener('abort', stopped, { once: true });
    });
  }

  /**
   * Sends something once the agent may: waits out a pause or shutdown, and retries if a pause lands between the
   * check and the send. Undefined if the agent stopped first.
   */
  async act<R>(send: () => R): Promise<R | undefined> {
    while (await this.waitUntilActive()) {
      try {
        return send();
      } catch (error) {
        if (!(error instanceof ParticipantPausedError)) throw error;
      }
    }
    return undefined;
  }

  /**
   * Compacts the context once it holds more than `compactionRatio` of the window, and says so (spec §3.9.5: an
   * autonomous compaction is announced). A failed summary loses nothing: the context stays, in the headroom the ratio
   * left; only an abort of `signal` rejects.
   */
  async ensureHeadroom(signal?: AbortSignal): Promise<void> {
    if (this.compacting || this.usage.tokens <= this.compactionRatio * this.maxTokens) return;
    this.compacting = true;
    try {
      if (await this.context.compact(signal)) this.reportStatus('compacted');
    } catch (error) {
      if (signal?.aborted) throw error;
    } finally {
      this.compacting = false;
    }
  }

  /** Broadcasts `participant/status` when my capabilities allow it (even while paused or shut down); `status` defaults to the state. */
  reportStatus(status: string = this.state): void {
    if (!this.canSend('participant/status', this.telemetry.statusPayload(status))) return;
    try {
      this.telemetry.report({ status });
    } catch (error) {
      this.log(`could not report status: ${(error as Error).message}`);
    }
  }

  /** Ends the agent: loops see `stopped`, the connection closes, `exited` resolves. Idempotent. */
  stop(exit: AgentExit = 'stopped'): void {
    if (this.stopping.signal.aborted) return;
    this.stopping.abort();
    this.disconnect();
    this.wake();
    this.resolveExit(exit);
  }

  /** A model counted the context at `tokens` (prompt and answer): reported instead of the estimate until the context shrinks. */
  protected countTokens(tokens: number | undefined): void {
    this.counted = tokens === undefined ? undefined : { tokens, generation: this.context.generation };
  }

  private wake(): void {
    for (const wake of [...this.wakers]) wake();
  }

  /**
   * Shutdown (spec §3.9.10): stop working but stay connected and visible as `shutdown`. The SDK disconnects once this
   * hook returns, so it returns only when the agent stops (a restart or the process ending).
   */
  private async idleUntilStopped(): Promise<void> {
    this.shutDown = true;
    this.wake();
    this.reportStatus();
    await this.exited;
  }

  /** Never throws: a `participant/compact-done` must follow every compact. */
  private async compactContext(): Promise<ParticipantCompactDonePayload> {
    if (!this.context.compactable) return { skipped: true, reason: 'nothing to compact' };
    let freed: ContextFreed | undefined;
    try {
      freed = await this.context.compact(this.stopping.signal);
    } catch (error) {
      return { skipped: true, reason: `compaction failed: ${(error as Error).message}` };
    }
    if (!freed) return { skipped: true, reason: 'context changed meanwhile' };
    return { status: 'compacted', freed_tokens: freed.freedTokens, freed_messages: freed.freedMessages };
  }

  private forgetContext({ direction, entries = DEFAULT_FORGET_ENTRIES }: ParticipantForgetPayload): ContextUsage {
    this.context.forget(direction, entries);
    return this.usage;
  }

  private clearContext(): ContextUsage {
    this.context.clear();
    return this.usage;
  }

  /** The runtime's reactions to the controls, each around the application's own hook, if any. */
  private static controlHooks<T>(own: ControlHooks = {}, runtime: () => AgentRuntime<T>): ControlHooks {
    return {
      onForget: async (payload, envelope) => {
        const usage = runtime().forgetContext(payload);
        await own.onForget?.(payload, envelope);
        return usage;
      },
      onCompact: async (payload, envelope) => {
        const done = await runtime().compactContext();
        await own.onCompact?.(payload, envelope);
        return done;
      },
      onClear: async (envelope) => {
        const usage = runtime().clearContext();
        await own.onClear?.(envelope);
        return usage;
      },
      onRestart: async (envelope) => {
        await own.onRestart?.(envelope);
        runtime().stop('restart');
      },
      onShutdown: async (envelope) => {
        await own.onShutdown?.(envelope);
        await runtime().idleUntilStopped();
      },
    };
  }
}
