import { JSONRPC_ERROR_CODES, parseToolsListResult, type ListedTool } from '../protocol';
import { backoffDelay, type Backoff } from './backoff';
import { DISCOVERY_MAX_ATTEMPTS, DISCOVERY_RETRY_BASE_DELAY_MS, DISCOVERY_RETRY_EXPONENT, DISCOVERY_TIMEOUT_MS, DISCOVERY_TTL_MS } from './sdk-defaults';
import { CapabilityDeniedError, McpError } from './sdk-errors';

export type DiscoveryState = 'not_started' | 'in_progress' | 'completed' | 'failed' | 'no_tools';

/** A tool another participant serves, attributed to it. */
export interface DiscoveredTool extends ListedTool {
  participantId: string;
}

export interface DiscoveryStatus {
  state: DiscoveryState;
  /** `tools/list` attempts made by the latest discovery. */
  attempts: number;
  /** When the latest attempt started (ms since epoch). */
  lastAttempt?: number;
  /** When the tools were last fetched successfully. */
  fetchedAt?: number;
  tools: DiscoveredTool[];
  /** Why the latest discovery failed. */
  error?: string;
}

export interface DiscoveryOptions {
  /** @default DISCOVERY_TIMEOUT_MS */
  timeoutMs?: number;
  /** @default DISCOVERY_MAX_ATTEMPTS */
  maxAttempts?: number;
  /** @default DISCOVERY_RETRY_BASE_DELAY_MS */
  retryBaseDelayMs?: number;
  /** @default DISCOVERY_TTL_MS */
  ttlMs?: number;
}

/** Asks a participant for its tools (`tools/list`); resolves with `result.tools`. */
export type ListTools = (participantId: string, timeoutMs: number) => Promise<unknown>;

/**
 * Discovery of other participants' tools: one state per participant, bounded retries with doubling delays
 * (failures that retrying cannot fix, like "method not found", end at once), a TTL after which cached tools are
 * still served but refreshed in the background, and a way to wait for discoveries in flight.
 *
 * @example
 * const discovery = new ToolDiscovery((id, timeoutMs) => participant.mcpRequest(id, { method: 'tools/list' }, timeoutMs));
 * await discovery.discover('calculator');
 * discovery.availableTools(); // [{ participantId: 'calculator', name: 'add', ... }]
 */
export class ToolDiscovery {
  private readonly statuses = new Map<string, DiscoveryStatus>();
  /** The discovery running per participant; a run whose entry was replaced or removed stops at its next step. */
  private readonly inFlight = new Map<string, { promise: Promise<DiscoveredTool[]> }>();
  /** Pending waits between attempts, so `reset` can cut them short. */
  private readonly waits = new Map<ReturnType<typeof setTimeout>, () => void>();
  private readonly settings: Required<DiscoveryOptions>;
  /** Waits between attempts: `retryBaseDelayMs`, doubling for each later one. */
  private readonly retryBackoff: Backoff;

  constructor(
    private readonly listTools: ListTools,
    options: DiscoveryOptions = {},
    /** Called whenever a participant's status changes. */
    private readonly onChange: (participantId: string, status: DiscoveryStatus) => void = () => undefined,
  ) {
    this.settings = {
      timeoutMs: options.timeoutMs ?? DISCOVERY_TIMEOUT_MS,
      maxAttempts: options.maxAttempts ?? DISCOVERY_MAX_ATTEMPTS,
      retryBaseDelayMs: options.retryBaseDelayMs ?? DISCOVERY_RETRY_BASE_DELAY_MS,
      ttlMs: options.ttlMs ?? DISCOVERY_TTL_MS,
    };
    this.retryBackoff = { minDelayMs: this.settings.retryBaseDelayMs, maxDelayMs: Infinity, exponent: DISCOVERY_RETRY_EXPONENT, jitterRatio: 0 };
  }

  allStatuses(): Map<string, DiscoveryStatus> {
    return new Map(this.statuses);
  }

  inProgress(): boolean {
    return this.inFlight.size > 0;
  }

  /**
   * Discovers a participant's tools, after `delayMs` (to stagger many at once). Fresh cached tools are returned
   * without asking unless `force`; a discovery already in flight is joined, not repeated. Rejects after the
   * last failed attempt.
   */
  discover(participantId: string, { force = false, delayMs = 0 } = {}): Promise<DiscoveredTool[]> {
    const running = this.inFlight.get(participantId);
    if (running) return running.promise;
    const current = this.statuses.get(participantId);
    if (!force && current?.fetchedAt !== undefined && Date.now() - current.fetchedAt < this.settings.ttlMs) {
      return Promise.resolve(current.tools);
    }
    // Registered before the run starts, so the run's first (synchronous) step already counts as live.
    const entry = {} as { promise: Promise<DiscoveredTool[]> };
    this.inFlight.set(participantId, entry);
    const live = () => this.inFlight.get(participantId) === entry;
    entry.promise = this.run(participantId, delayMs, live).finally(() => {
      if (live()) this.inFlight.delete(participantId);
    });
    return entry.promise;
  }

  /** Every discovered tool; tools older than the TTL are still listed while a refresh runs in the background. */
  availableTools(): DiscoveredTool[] {
    const tools: DiscoveredTool[] = [];
    for (const [participantId, status] of this.statuses) {
      if (status.fetchedAt !== undefined && Date.now() - status.fetchedAt >= this.settings.ttlMs) {
        this.discover(participantId).catch(() => undefined); // the failure is in its status
      }
      tools.push(...status.tools);
    }
    return tools;
  }

  /** Resolves true once no discovery is in flight, or false when `maxWaitMs` runs out first. */
  async waitForPending(maxWaitMs: number): Promise<boolean> {
    const deadline = Date.now() + maxWaitMs;
    while (this.inFlight.size > 0) {
      const left = deadline - Date.now();
      if (left <= 0) return false;
      let timer: ReturnType<typeof setTimeout> | undefined;
      const timeout = new Promise<void>((resolve) => (timer = setTimeout(resolve, left)));
      await Promise.race([Promise.allSettled([...this.inFlight.values()].map((entry) => entry.promise)), timeout]);
      clearTimeout(timer);
    }
    return true;
  }

  /** Drops what is known about a participant (it left). */
  forget(participantId: string): void {
    this.statuses.delete(participantId);
    this.inFlight.delete(participantId);
  }

  /** Stops everything (the participant disconnected). */
  reset(): void {
    this.inFlight.clear();
    // Waking the runs lets each one notice it is no longer live and reject, instead of hanging forever.
    for (const [timer, wake] of this.waits) {
      clearTimeout(timer);
      wake();
    }
    this.waits.clear();
  }

  private async run(participantId: string, delayMs: number, live: () => boolean): Promise<DiscoveredTool[]> {
    const previous = this.statuses.get(participantId);
    const update = (status: DiscoveryStatus) => {
      if (!live()) return;
      this.statuses.set(participantId, status);
      this.onChange(participantId, status);
    };
    // Cached tools stay listed while a refresh runs: better stale than missing.
    const base = { tools: previous?.tools ?? [], fetchedAt: previous?.fetchedAt };
    update({ ...base, state: 'in_progress', attempts: 0 });
    if (delayMs > 0) await this.sleep(delayMs);
    for (let attempt = 1; ; attempt++) {
      if (!live()) throw new Error(`discovery of ${participantId} was cancelled`);
      update({ ...base, state: 'in_progress', attempts: attempt, lastAttempt: Date.now() });
      try {
        const tools = parseTools(participantId, await this.listTools(participantId, this.settings.timeoutMs));
        update({ state: tools.length > 0 ? 'completed' : 'no_tools', attempts: attempt, lastAttempt: Date.now(), fetchedAt: Date.now(), tools });
        return tools;
      } catch (error) {
        if (isMethodNotFound(error)) {
          update({ state: 'no_tools', attempts: attempt, lastAttempt: Date.now(), fetchedAt: Date.now(), tools: [] });
          return [];
        }
        if (attempt >= this.settings.maxAttempts || error instanceof CapabilityDeniedError) {
          update({ ...base, state: 'failed', attempts: attempt, lastAttempt: Date.now(), error: (error as Error).message });
          throw error;
        }
        await this.sleep(backoffDelay(attempt - 1, this.retryBackoff));
      }
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waits.delete(timer);
        resolve();
      }, ms);
      this.waits.set(timer, resolve);
    });
  }
}

function isMethodNotFound(error: unknown): boolean {
  return error instanceof McpError && error.code === JSONRPC_ERROR_CODES.methodNotFound;
}

/** `tools/list`'s tools, read as every reader does (lib/protocol), attributed to their server. */
function parseTools(participantId: string, result: unknown): DiscoveredTool[] {
  const tools = parseToolsListResult(result);
  if (!tools) throw new Error(`${participantId} answered tools/list without a tools array`);
  return tools.map((tool) => ({ ...tool, participantId }));
}
