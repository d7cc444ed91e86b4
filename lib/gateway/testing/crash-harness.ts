/**
 * The harness of the "exactly once across a crash" acceptance tests (lib/gateway/crash-exactly-once.test.ts and
 * lib/cluster/crash-exactly-once.test.ts): gateway (or cluster node) processes and a redis-server that can be killed
 * with SIGKILL or stopped with SIGSTOP, the project's SDK clients connected to them with catch-up and reconnect on,
 * a chat load whose acknowledgements and deliveries are recorded per envelope id, tool calls whose executions are
 * counted where they run (a participant's tool, a bridged stdio MCP server, a MEWAgent's calls), and the final
 * tally. Real processes and sockets on 127.0.0.1 only. Nothing in the product imports it.
 *
 * Waiting is always for a condition with a liveness bound (`waitUntil`); the only plain delays (`loadFor`) decide
 * *when* a disruption happens while the load runs, drawn from a seeded generator so a failing run can be replayed
 * (`MEW_CRASH_SEED=<seed>`).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';
import { McpBridge } from '../../bridge/mcp-bridge';
import type { AnyEnvelope } from '../../protocol';
import { MEWAgent } from '../../sdk/agent/mew-agent';
import { MEWClient, type MEWClientOptions } from '../../sdk/mew-client';
import { MEWParticipant, type MEWParticipantOptions } from '../../sdk/mew-participant';
import { TEST_BACKOFF } from '../../sdk/testing';
import { freePort } from '../testing';

/** The repository root: where `scripts/gateway.ts` runs from. */
export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const COUNTING_SERVER = fileURLToPath(new URL('./counting-mcp-server.mjs', import.meta.url));

// ── Determinism ───────────────────────────────────────────────────────────────────────────────────────

/** `MEW_CRASH_SEED` when set (to replay a failure), else the test's fixed seed. */
export function crashSeed(fixed: number): number {
  const fromEnv = process.env.MEW_CRASH_SEED;
  return fromEnv ? Number(fromEnv) >>> 0 : fixed >>> 0;
}

/** A test's seed (see `crashSeed`), the generator of its disruptions' moments, and its time budget. */
export interface CrashRun {
  seed: number;
  rng: SeededRandom;
  budget: Budget;
}

export function crashRun(fixedSeed: number): CrashRun {
  const seed = crashSeed(fixedSeed);
  return { seed, rng: new SeededRandom(seed), budget: Budget.of(TEST_BUDGET_MS) };
}

/** mulberry32: a small, good-enough seeded generator (the moments of the disruptions, never the assertions). */
export class SeededRandom {
  private state: number;
  constructor(readonly seed: number) {
    this.state = seed >>> 0;
  }
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  /** An integer in [min, max]. */
  between(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }
}

// ── Waiting ───────────────────────────────────────────────────────────────────────────────────────────

/** Polls `condition` until it holds (true) or `timeoutMs` passed (false). A liveness bound, never a timing. */
export async function waitUntil(condition: () => boolean | Promise<boolean>, timeoutMs: number, intervalMs = 25): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await condition()) return true;
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** Like `waitUntil`, but a missed bound is an error naming `what` (for setup steps, not for the properties under test). */
export async function mustReach(condition: () => boolean | Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  if (!(await waitUntil(condition, timeoutMs))) throw new Error(`${what}: not reached within ${timeoutMs} ms`);
}

/**
 * A test's time budget: liveness bounds are cut to what is left of it, so that a test whose property does not hold
 * fails with its numbers printed rather than by the runner's timeout.
 */
export class Budget {
  private constructor(private readonly endsAt: number) {}
  static of(ms: number): Budget {
    return new Budget(Date.now() + ms);
  }
  /** `ms`, or less when less is left (never below `floorMs`). */
  bound(ms: number, floorMs = 2_000): number {
    return Math.max(floorMs, Math.min(ms, this.endsAt - Date.now()));
  }
}

/** Lets the load run this long: decides *when* the next disruption happens (not a wait for anything). */
export function loadFor(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

// ── Processes ─────────────────────────────────────────────────────────────────────────────────────────

/** Every child this module started and has not seen exit: `killStartedProcesses` ends them all. */
const started = new Set<ChildProcess>();

function track(child: ChildProcess): ChildProcess {
  started.add(child);
  child.once('exit', () => started.delete(child));
  return child;
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/** SIGCONT (a stopped process cannot die of SIGKILL until it is scheduled) and SIGKILL to every child still running. */
export async function killStartedProcesses(): Promise<void> {
  const children = [...started];
  for (const child of children) {
    child.kill('SIGCONT');
    child.kill('SIGKILL');
  }
  await Promise.all(children.map(exited));
}

export interface ServerProcessOptions {
  /** For the log, e.g. `gateway` or `n0`. */
  name: string;
  port: number;
  dataDir: string;
  configFiles: string[];
  /** Added to the environment (MEW_REDIS_URL, MEW_NODE_ID for a cluster node). */
  env?: Record<string, string>;
  /** Bound on a start, until `/healthz` answers. @default 30 s */
  startTimeoutMs?: number;
}

/**
 * `node --import tsx scripts/gateway.ts` (a single gateway, or a cluster node with MEW_REDIS_URL) on a fixed port and
 * data dir, so that it can be killed with SIGKILL and started again on the same port and data dir.
 */
export class ServerProcess {
  child?: ChildProcess;
  /** One entry per start: how long until `/healthz` answered. */
  readonly startMs: number[] = [];
  private printed = '';

  private constructor(readonly options: ServerProcessOptions) {}

  static async start(options: ServerProcessOptions): Promise<ServerProcess> {
    const server = new ServerProcess(options);
    await server.launch();
    return server;
  }

  get name(): string {
    return this.options.name;
  }
  get port(): number {
    return this.options.port;
  }
  get wsUrl(): string {
    return `ws://127.0.0.1:${this.options.port}/ws`;
  }
  httpUrl(path: string): string {
    return `http://127.0.0.1:${this.options.port}${path}`;
  }
  get alive(): boolean {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }
  get pid(): number | undefined {
    return this.child?.pid;
  }
  /** The last 64 KiB it printed (every start). */
  output(): string {
    return this.printed;
  }

  /** Starts it (again) and resolves once `/healthz` answers 200; rejects with its output if it exits or stays silent. */
  async launch(): Promise<void> {
    if (this.alive) throw new Error(`${this.name} is already running`);
    const { port, dataDir, configFiles, env = {} } = this.options;
    const begin = Date.now();
    const child = track(
      spawn(process.execPath, ['--import', 'tsx', 'scripts/gateway.ts'], {
        cwd: REPO_ROOT,
        env: {
          ...process.env,
          PORT: String(port),
          HOST: '127.0.0.1',
          MEW_DATA_DIR: dataDir,
          MEW_SPACE_CONFIG: configFiles.join(','),
          ...env,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      }),
    );
    this.child = child;
    const keep = (chunk: Buffer) => {
      this.printed = (this.printed + chunk.toString()).slice(-65_536);
    };
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
    let gone = false;
    void exited(child).then(() => (gone = true));
    const healthy = await waitUntil(async () => gone || (await this.healthy()), this.options.startTimeoutMs ?? 30_000, 25);
    if (gone || !healthy) {
      child.kill('SIGKILL');
      throw new Error(
        `${this.name} did not start on port ${port} (${gone ? `exited: ${child.exitCode ?? child.signalCode}` : 'no /healthz'}):\n${this.printed.slice(-4000)}`,
      );
    }
    this.startMs.push(Date.now() - begin);
  }

  /** `kill -9`; resolves once the process is gone (its sockets closed by the kernel). */
  async kill9(): Promise<void> {
    const child = this.child;
    if (!child) return;
    child.kill('SIGKILL');
    await exited(child);
  }

  /** SIGTERM (a clean stop), SIGKILL after 5 s. */
  async stop(): Promise<void> {
    const child = this.child;
    if (!child || !this.alive) return;
    const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    child.kill('SIGTERM');
    await exited(child);
    clearTimeout(timer);
  }

  private async healthy(): Promise<boolean> {
    try {
      const response = await fetch(this.httpUrl('/healthz'), { signal: AbortSignal.timeout(1_000) });
      return response.ok;
    } catch {
      return false;
    }
  }
}

/** A throwaway redis-server (no persistence) whose process a test may SIGSTOP and SIGCONT. `REDIS_SERVER` overrides the binary. */
export class RedisProcess {
  private constructor(
    readonly child: ChildProcess,
    readonly port: number,
    private readonly dir: string,
  ) {}

  static async start(): Promise<RedisProcess> {
    const port = await freePort();
    const dir = tempDir('mew-crash-redis-'); // removed by removeDirs, even when the test never calls stop()
    const child = track(
      spawn(process.env.REDIS_SERVER ?? 'redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], {
        stdio: ['ignore', 'pipe', 'pipe'],
      }),
    );
    let printed = '';
    child.stdout!.on('data', (chunk: Buffer) => (printed += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (printed += chunk.toString()));
    await mustReach(() => /Ready to accept connections/.test(printed) || child.exitCode !== null, 10_000, `redis-server on port ${port}`);
    if (child.exitCode !== null) throw new Error(`redis-server exited: ${printed}`);
    return new RedisProcess(child, port, dir);
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }
  /** SIGSTOP: the process keeps its sockets but answers nothing. */
  freeze(): void {
    this.child.kill('SIGSTOP');
  }
  /** SIGCONT. */
  thaw(): void {
    this.child.kill('SIGCONT');
  }
  async stop(): Promise<void> {
    this.child.kill('SIGCONT');
    this.child.kill('SIGKILL');
    await exited(this.child);
    rmSync(this.dir, { recursive: true, force: true });
  }
}

// ── Space config ──────────────────────────────────────────────────────────────────────────────────────

/** A participant's fixed token (≥ 32 characters, as the gateway asks of config tokens). */
export function crashToken(participantId: string): string {
  return `${participantId}-exactly-once-token-0123456789abcdef`;
}

/** A temp data dir; `removeDirs` removes every one made. */
const dirs: string[] = [];
export function tempDir(prefix = 'mew-crash-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
}
export function removeDirs(): void {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/**
 * Writes `<dir>/<space>.yaml` in the space.yaml layout: each participant with its fixed token and capabilities,
 * generous rate limits (a refusal is not what these tests are about) and a history long enough that a reconnecting
 * client's catch-up is never cut short by the ring's size.
 */
export function writeSpaceConfig(dir: string, space: string, participants: Record<string, unknown[]>): string {
  const file = join(dir, `${space}.yaml`);
  const config = {
    space: { id: space, name: `exactly once (${space})` },
    participants: Object.fromEntries(Object.entries(participants).map(([id, capabilities]) => [id, { tokens: [crashToken(id)], capabilities }])),
    limits: { rate_per_second: 100_000, rate_burst: 100_000, history_size: 200_000, max_buffered_bytes: 256 * 1024 * 1024 },
  };
  writeFileSync(file, stringify(config));
  return file;
}

/** The capabilities of the chat load's participants (`ChatLoad`) and of the tool load's (`ToolLoad`). */
export const CHAT_CAPABILITIES = [{ kind: 'chat' }];
export const TOOL_LOAD_PARTICIPANTS: Record<string, unknown[]> = {
  provider: [{ kind: 'mcp/response' }, { kind: 'chat' }],
  ledger: [{ kind: 'mcp/response' }, { kind: 'chat' }],
  caller: [{ kind: 'mcp/request' }, { kind: 'chat' }],
  files: [{ kind: 'mcp/response' }, { kind: 'mcp/request', payload: { method: 'notifications/tools/list_changed' } }, { kind: 'participant/status' }],
  agent: [{ kind: 'chat' }, { kind: 'mcp/request', payload: { method: 'tools/*' } }],
  human: [{ kind: 'chat' }],
};

/** The space both crash suites use. */
export const CRASH_SPACE = 'crash';
/** Combined chat rate of the crash suites' load (the issue's 250 msg/s). */
export const CRASH_CHAT_RATE = 250;
/** How long the space may take to become quiet once the load stopped: a liveness bound, not a timing. */
export const QUIET_BOUND_MS = 20_000;
/** Reconnection after a restart or takeover: a liveness bound. */
export const RECONNECT_BOUND_MS = 15_000;
/** Every bound is cut to what is left of this (a test's timeout is 60 s): a failing test still prints its numbers. */
export const TEST_BUDGET_MS = 52_000;

/** The chat load of a crash suite: `senders`, a `MEWClient` and a `MEWParticipant` receiver, and one member away. */
export function crashChatLoad(senders: string[]): ChatLoadOptions {
  return { senders, receivers: ['watcher'], participantReceivers: ['observer'], away: 'away', ratePerSecond: CRASH_CHAT_RATE };
}

/** Every participant of a crash suite's space with its capabilities: the chat load's and the tool load's. */
export function crashParticipants(chat: ChatLoadOptions): Record<string, unknown[]> {
  const chatMembers = [...chat.senders, ...chat.receivers, ...(chat.participantReceivers ?? []), chat.away];
  return { ...Object.fromEntries(chatMembers.map((id) => [id, CHAT_CAPABILITIES])), ...TOOL_LOAD_PARTICIPANTS };
}

// ── SDK clients and what their applications receive ───────────────────────────────────────────────────

/** What one client's application was given (`message` events): every envelope id, and how often. */
export class DeliveryLog {
  readonly counts = new Map<string, number>();
  /** Ids of the `chat`s delivered. */
  readonly chats = new Set<string>();
  duplicates = 0;
  readonly duplicateKinds = new Map<string, number>();
  /** A few duplicated envelopes, for the report. */
  readonly duplicateSamples: string[] = [];

  constructor(readonly name: string) {}

  record(envelope: AnyEnvelope): void {
    const n = (this.counts.get(envelope.id) ?? 0) + 1;
    this.counts.set(envelope.id, n);
    if (envelope.kind === 'chat') this.chats.add(envelope.id);
    if (n < 2) return;
    this.duplicates++;
    this.duplicateKinds.set(envelope.kind, (this.duplicateKinds.get(envelope.kind) ?? 0) + 1);
    if (this.duplicateSamples.length < 3) this.duplicateSamples.push(`${envelope.kind} ${envelope.id} from ${envelope.from} (×${n})`);
  }
}

type Closer = () => void | Promise<void>;

/** Every SdkClients not closed yet: `cleanUpCrashTest` closes them. */
const openClients = new Set<SdkClients>();

/** After each crash test: closes the SDK clients still open, ends every process started, removes every temp dir. */
export async function cleanUpCrashTest(): Promise<void> {
  for (const clients of [...openClients]) await clients.closeAll();
  await killStartedProcesses();
  removeDirs();
}

/** Creates the SDK clients of one space (all with catch-up `missed` and reconnect on), logs their deliveries, closes them all. */
export class SdkClients {
  readonly logs: DeliveryLog[] = [];
  /** Clients that must be `ready` again after a disruption, and whether each is away on purpose. */
  private readonly watched: { name: string; client: MEWClient; away: boolean }[] = [];
  private readonly closers: Closer[] = [];
  /** Connections lost (and retried) over all clients; catch-ups reported by welcomes, and those that said something was lost. */
  drops = 0;
  catchUps = 0;
  incompleteCatchUps = 0;

  constructor(
    readonly space: string,
    /** The gateway (or node) each participant connects to. */
    readonly urlFor: (participantId: string) => string,
  ) {
    openClients.add(this);
  }

  options(participantId: string): MEWClientOptions {
    return {
      gateway: this.urlFor(participantId),
      space: this.space,
      token: crashToken(participantId),
      catchUp: 'missed',
      reconnect: true,
      backoff: TEST_BACKOFF,
      connectTimeoutMs: 5_000,
      outboundQueueLimit: 50_000,
    };
  }

  client(participantId: string): { client: MEWClient; log: DeliveryLog } {
    const client = new MEWClient(this.options(participantId));
    return { client, log: this.watch(participantId, client) };
  }

  participant(participantId: string, options: Partial<MEWParticipantOptions> = {}): { participant: MEWParticipant; log: DeliveryLog } {
    const participant = new MEWParticipant({ ...this.options(participantId), requestTimeoutMs: 40_000, ...options });
    return { participant, log: this.watch(participantId, participant.client) };
  }

  /** Registers a client whose deliveries are logged and which is disconnected by `closeAll`. */
  watch(name: string, client: MEWClient, close: Closer = () => client.disconnect()): DeliveryLog {
    const log = new DeliveryLog(name);
    client.on('message', (envelope) => log.record(envelope));
    client.on('status', (change) => {
      if (change.status === 'disconnected' && change.willReconnect) this.drops++;
    });
    client.on('catch-up', (catchUp) => {
      this.catchUps++;
      if (!catchUp.complete) this.incompleteCatchUps++;
    });
    this.logs.push(log);
    this.watched.push({ name, client, away: false });
    this.closers.push(close);
    return log;
  }

  /** Something else to close at the end (a bridge, a model server). */
  onClose(close: Closer): void {
    this.closers.push(close);
  }

  setAway(client: MEWClient, away: boolean): void {
    const entry = this.watched.find((w) => w.client === client);
    if (entry) entry.away = away;
  }

  /** Names of the clients that should be connected and are not `ready`. */
  notReady(): string[] {
    return this.watched.filter((w) => !w.away && w.client.status !== 'ready').map((w) => `${w.name}:${w.client.status}`);
  }

  duplicates(): { total: number; byClient: Record<string, number>; byKind: Record<string, number>; samples: string[] } {
    const byClient: Record<string, number> = {};
    const byKind: Record<string, number> = {};
    const samples: string[] = [];
    let total = 0;
    for (const log of this.logs) {
      if (!log.duplicates) continue;
      total += log.duplicates;
      byClient[log.name] = log.duplicates;
      for (const [kind, n] of log.duplicateKinds) byKind[kind] = (byKind[kind] ?? 0) + n;
      samples.push(...log.duplicateSamples.map((s) => `${log.name}: ${s}`));
    }
    return { total, byClient, byKind, samples: samples.slice(0, 6) };
  }

  /** Closes everything registered, newest first; each gets at most 3 s (the processes are killed afterwards anyway). */
  async closeAll(): Promise<void> {
    openClients.delete(this);
    for (const close of this.closers.splice(0).reverse()) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      try {
        await Promise.race([close(), new Promise((resolve) => (timer = setTimeout(resolve, 3_000)))]);
      } catch {
        // best effort
      } finally {
        clearTimeout(timer);
      }
    }
  }
}

// ── The chat load ─────────────────────────────────────────────────────────────────────────────────────

interface Sender {
  id: string;
  client: MEWClient;
  sent: Set<string>;
  /** Ids whose echo this sender received: accepted by the gateway. */
  acked: Set<string>;
  sendErrors: number;
}

interface Member {
  id: string;
  client: MEWClient;
  log: DeliveryLog;
}

export interface ChatLoadOptions {
  senders: string[];
  /** Plain `MEWClient` receivers. */
  receivers: string[];
  /** Receivers that are `MEWParticipant`s. */
  participantReceivers?: string[];
  /** A `MEWClient` receiver that `goAway()` disconnects and `comeBack()` reconnects. */
  away: string;
  /** Combined chat envelopes per second over all senders. */
  ratePerSecond: number;
}

/**
 * Senders sending chat at a combined rate, recording which of their envelope ids were echoed (acknowledged);
 * receivers (and the senders themselves) recording every id their application was given. Lost = acknowledged by
 * its sender, never delivered to some other member; the away member is a member like the others.
 */
export class ChatLoad {
  readonly senders: Sender[] = [];
  readonly members: Member[] = [];
  readonly away: Member;
  private timers: ReturnType<typeof setInterval>[] = [];
  private sequence = 0;
  awayPeriods: { from: number; to?: number }[] = [];

  constructor(
    private readonly clients: SdkClients,
    private readonly options: ChatLoadOptions,
  ) {
    for (const id of options.senders) {
      const { client, log } = clients.client(id);
      const sender: Sender = { id, client, sent: new Set(), acked: new Set(), sendErrors: 0 };
      client.on('message', (envelope) => {
        if (envelope.from === id && sender.sent.has(envelope.id)) sender.acked.add(envelope.id);
      });
      this.senders.push(sender);
      this.members.push({ id, client, log });
    }
    for (const id of options.receivers) this.members.push({ id, ...clients.client(id) });
    for (const id of options.participantReceivers ?? []) {
      const { participant, log } = clients.participant(id);
      this.members.push({ id, client: participant.client, log });
    }
    this.away = { id: options.away, ...clients.client(options.away) };
    this.members.push(this.away);
    clients.onClose(() => this.stop());
  }

  async connect(): Promise<void> {
    await Promise.all(this.members.map((m) => m.client.connect()));
  }

  start(): void {
    const intervalMs = Math.max(1, Math.round((1000 * this.senders.length) / this.options.ratePerSecond));
    for (const sender of this.senders) this.timers.push(setInterval(() => this.sendOne(sender), intervalMs));
  }

  stop(): void {
    for (const timer of this.timers.splice(0)) clearInterval(timer);
  }

  /** One last chat per sender: sent after everything else, it must reach everyone too. */
  sendMarkers(): void {
    for (const sender of this.senders) this.sendOne(sender, 'marker');
  }

  goAway(): void {
    this.clients.setAway(this.away.client, true);
    this.awayPeriods.push({ from: Date.now() });
    this.away.client.disconnect();
  }

  comeBack(): void {
    this.clients.setAway(this.away.client, false);
    this.awayPeriods.at(-1)!.to = Date.now();
    this.away.client.connect().catch(() => undefined); // readiness is awaited through SdkClients.notReady
  }

  get sent(): number {
    return this.senders.reduce((n, s) => n + s.sent.size, 0);
  }
  get acked(): number {
    return this.senders.reduce((n, s) => n + s.acked.size, 0);
  }
  get unacked(): number {
    return this.sent - this.acked;
  }

  /** Per member: acknowledged ids (of every sender) its application never got. */
  missing(): Record<string, number> {
    const missing: Record<string, number> = {};
    for (const member of this.members) {
      let n = 0;
      for (const sender of this.senders) for (const id of sender.acked) if (!member.log.chats.has(id)) n++;
      missing[member.id] = n;
    }
    return missing;
  }

  totalMissing(): number {
    return Object.values(this.missing()).reduce((a, b) => a + b, 0);
  }

  delivered(): Record<string, number> {
    return Object.fromEntries(this.members.map((m) => [m.id, m.log.chats.size]));
  }

  private sendOne(sender: Sender, text = `#${++this.sequence}`): void {
    try {
      const sent = sender.client.send({ kind: 'chat', payload: { text: `${sender.id} ${text}` } });
      sender.sent.add(sent.id);
    } catch {
      sender.sendErrors++;
    }
  }
}

// ── The tool load ─────────────────────────────────────────────────────────────────────────────────────

function bump(map: Map<string, number>, key: string): void {
  map.set(key, (map.get(key) ?? 0) + 1);
}

function twice(map: Map<string, number>, filter: (key: string) => boolean = () => true): string[] {
  return [...map].filter(([key, n]) => n > 1 && filter(key)).map(([key, n]) => `${key}×${n}`);
}

interface Call {
  target: 'provider' | 'ledger' | 'files';
  state: 'pending' | 'ok' | 'failed';
  error?: string;
}

/**
 * Tool calls during the load, each with a unique business key, counted where they execute:
 * - `provider` and `ledger` (`MEWParticipant`s) serve `charge_card`, counting executions per key and per request
 *   envelope id; `ledger` is the one that `goAway()` disconnects during a disruption (its requests reach it by catch-up);
 * - `files` is an `McpBridge` in this process over `counting-mcp-server.mjs`, which appends a line per execution to a file;
 * - `agent` is a `MEWAgent` on `KeyedModelServer` that answers `human`'s "charge agent-N" by calling `provider`'s tool;
 * - `caller` (`MEWParticipant.mcpRequest`) calls provider, ledger and files in turn.
 */
export class ToolLoad {
  readonly provider: MEWParticipant;
  readonly ledger: MEWParticipant;
  readonly caller: MEWParticipant;
  readonly human: MEWParticipant;
  readonly agent: MEWAgent;
  readonly bridge: McpBridge;
  readonly model: KeyedModelServer;
  readonly countFile: string;
  /** Executions per business key (charge_id), per server. */
  readonly executions = { provider: new Map<string, number>(), ledger: new Map<string, number>() };
  /** Executions per request envelope id (`<server>:<id>`). */
  readonly executionsByRequest = new Map<string, number>();
  invocations = 0;
  readonly calls = new Map<string, Call>();
  readonly questions = new Map<string, { id: string; answered: boolean }>();
  private timers: ReturnType<typeof setInterval>[] = [];
  private next = 0;
  private nextQuestion = 0;

  private constructor(
    private readonly clients: SdkClients,
    model: KeyedModelServer,
    countFile: string,
  ) {
    this.model = model;
    this.countFile = countFile;
    this.provider = this.chargeServer('provider');
    this.ledger = this.chargeServer('ledger');
    this.caller = clients.participant('caller').participant;
    this.human = clients.participant('human').participant;
    this.human.client.on('chat', (chat) => {
      if (chat.from !== 'agent') return;
      for (const question of this.questions.values()) if (chat.correlation_id?.includes(question.id)) question.answered = true;
    });
    this.agent = new MEWAgent({
      ...clients.options('agent'),
      requestTimeoutMs: 40_000,
      model: 'keyed',
      baseUrl: model.baseUrl,
      stream: false,
      maxRepliesPerMinute: 100_000,
      maxIterations: 3,
    });
    clients.watch('agent', this.agent.client, () => this.agent.disconnect());
    const { backoff: _reconnectBackoff, ...filesOptions } = clients.options('files');
    this.bridge = new McpBridge({
      ...filesOptions,
      requestTimeoutMs: 40_000,
      server: { command: process.execPath, args: [COUNTING_SERVER], env: { MEW_COUNT_FILE: countFile } },
      log: () => undefined,
      // No `backoff`: McpBridge takes it for its server's restarts, so its participant reconnects with the SDK's default.
    });
    clients.watch('files', this.bridge.participant.client, () => this.bridge.stop());
    clients.onClose(() => this.stop());
  }

  /** Starts the model server and the participants; resolves once the bridge's server is up and the agent sees `provider__charge_card`. */
  static async start(clients: SdkClients, dir: string): Promise<ToolLoad> {
    const model = await KeyedModelServer.start();
    clients.onClose(() => model.close());
    const load = new ToolLoad(clients, model, join(dir, 'bridge-executions.log'));
    await Promise.all([
      load.provider.connect(),
      load.ledger.connect(),
      load.caller.connect(),
      load.human.connect(),
      load.bridge.connect(),
      load.agent.connect(),
    ]);
    await mustReach(() => load.bridge.upstream.status.state === 'ready', 20_000, 'the bridged MCP server ready');
    await mustReach(
      () => load.agent.discovery.available().some((tool) => tool.participantId === 'provider' && tool.name === 'charge_card'),
      20_000,
      'the agent discovering provider’s charge_card',
    );
    return load;
  }

  /** A call every `callEveryMs` (provider, ledger, files in turn) and a question to the agent every `askEveryMs`. */
  start(callEveryMs: number, askEveryMs: number): void {
    this.timers.push(setInterval(() => this.callOne(), callEveryMs));
    this.timers.push(setInterval(() => this.askOne(), askEveryMs));
  }

  stop(): void {
    for (const timer of this.timers.splice(0)) clearInterval(timer);
  }

  goAway(): void {
    this.clients.setAway(this.ledger.client, true);
    this.ledger.disconnect();
  }

  comeBack(): void {
    this.clients.setAway(this.ledger.client, false);
    this.ledger.connect().catch(() => undefined);
  }

  /** Every call answered or failed, every question answered. */
  settled(): boolean {
    for (const call of this.calls.values()) if (call.state === 'pending') return false;
    for (const question of this.questions.values()) if (!question.answered) return false;
    return true;
  }

  /** Executions of the bridged server, per key, as its file says. */
  bridgeExecutions(): Map<string, number> {
    const counts = new Map<string, number>();
    if (!existsSync(this.countFile)) return counts;
    for (const line of readFileSync(this.countFile, 'utf8').split('\n')) if (line) bump(counts, line);
    return counts;
  }

  report() {
    const bridge = this.bridgeExecutions();
    const byState = (target: Call['target']) => {
      const calls = [...this.calls.values()].filter((c) => c.target === target);
      return {
        calls: calls.length,
        ok: calls.filter((c) => c.state === 'ok').length,
        failed: calls.filter((c) => c.state === 'failed').length,
        pending: calls.filter((c) => c.state === 'pending').length,
      };
    };
    const executedTwice = {
      provider: twice(this.executions.provider, (key) => !key.startsWith('agent-')),
      ledger: twice(this.executions.ledger),
      bridge: twice(bridge),
      agent: twice(this.executions.provider, (key) => key.startsWith('agent-')),
      requestIds: twice(this.executionsByRequest),
    };
    const questions = [...this.questions.values()];
    const errors = [...this.calls.entries()]
      .filter(([, c]) => c.error)
      .slice(0, 3)
      .map(([key, c]) => `${key}: ${c.error}`);
    return {
      provider: { ...byState('provider'), executions: sum(this.executions.provider, (k) => !k.startsWith('agent-')) },
      ledger: { ...byState('ledger'), executions: sum(this.executions.ledger) },
      bridge: { ...byState('files'), executions: sum(bridge) },
      agent: {
        questions: questions.length,
        answered: questions.filter((q) => q.answered).length,
        executions: sum(this.executions.provider, (k) => k.startsWith('agent-')),
        modelRequests: this.model.requests,
      },
      executedTwice,
      executedTwiceCount:
        executedTwice.provider.length +
        executedTwice.ledger.length +
        executedTwice.bridge.length +
        executedTwice.agent.length +
        executedTwice.requestIds.length,
      unanswered: [...this.calls.values()].filter((c) => c.state !== 'ok').length + questions.filter((q) => !q.answered).length,
      errors,
    };
  }

  private chargeServer(id: 'provider' | 'ledger'): MEWParticipant {
    const { participant } = this.clients.participant(id);
    participant.tools.register({
      name: 'charge_card',
      description: 'Charges a card once per charge_id',
      inputSchema: { type: 'object', required: ['charge_id'], properties: { charge_id: { type: 'string' } } },
      execute: ({ charge_id }, context) => {
        this.invocations++;
        bump(this.executions[id], String(charge_id));
        bump(this.executionsByRequest, `${id}:${context.envelope.id}`);
        return `charged ${String(charge_id)}`;
      },
    });
    return participant;
  }

  private callOne(): void {
    const n = this.next++;
    const target = (['provider', 'ledger', 'files'] as const)[n % 3];
    const key = `${target === 'files' ? 'bridge' : target}-${n}`;
    const call: Call = { target, state: 'pending' };
    this.calls.set(key, call);
    const params = target === 'files' ? { name: 'record', arguments: { key } } : { name: 'charge_card', arguments: { charge_id: key } };
    this.caller.mcpRequest(target, { method: 'tools/call', params }, 40_000).then(
      (result) => {
        const isError = (result as { isError?: boolean } | undefined)?.isError;
        call.state = isError ? 'failed' : 'ok';
        if (isError) call.error = JSON.stringify(result).slice(0, 200);
      },
      (error: Error) => {
        call.state = 'failed';
        call.error = `${error.name}: ${error.message}`.slice(0, 200);
      },
    );
  }

  private askOne(): void {
    const key = `agent-${this.nextQuestion++}`;
    try {
      const sent = this.human.chat.send(`charge ${key}`, ['agent']);
      this.questions.set(key, { id: sent.id, answered: false });
    } catch {
      this.questions.set(key, { id: `unsent-${key}`, answered: false });
    }
  }
}

function sum(map: Map<string, number>, filter: (key: string) => boolean = () => true): number {
  let n = 0;
  for (const [key, count] of map) if (filter(key)) n += count;
  return n;
}

// ── A model that answers by content ───────────────────────────────────────────────────────────────────

/**
 * An OpenAI-compatible chat-completions server (non-streaming) whose answer depends only on the request, so that
 * duplicated or reordered turns cannot desynchronise a script: for the turn's "charge agent-N" lines it calls
 * `provider__charge_card` once per key, and once the turn carries tool results it answers "charged …".
 */
export class KeyedModelServer {
  requests = 0;
  private constructor(
    private readonly server: Server,
    private readonly port: number,
  ) {}

  static async start(): Promise<KeyedModelServer> {
    let self: KeyedModelServer | undefined;
    const server = createServer((req, res) => void self!.handle(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    self = new KeyedModelServer(server, (server.address() as AddressInfo).port);
    return self;
  }

  get baseUrl(): string {
    return `http://127.0.0.1:${this.port}/v1`;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method !== 'POST' || req.url !== '/v1/chat/completions') return void res.writeHead(404).end();
    let raw = '';
    for await (const chunk of req) raw += chunk;
    this.requests++;
    const body = JSON.parse(raw) as {
      model: string;
      stream?: boolean;
      messages: { role: string; content?: unknown }[];
      tools?: { function: { name: string } }[];
    };
    if (body.stream) return json(res, 400, { error: { message: 'keyed model server: streaming is not scripted', type: 'invalid_request_error' } });
    const lastUser = body.messages.map((m) => m.role).lastIndexOf('user');
    const text = typeof body.messages[lastUser]?.content === 'string' ? (body.messages[lastUser].content as string) : '';
    const keys = [...text.matchAll(/charge (agent-\d+)/g)].map((m) => m[1]);
    const haveResults = body.messages.slice(lastUser + 1).some((m) => m.role === 'tool');
    const tool = body.tools?.find((t) => t.function.name === 'provider__charge_card');
    const toolCalls =
      !haveResults && tool && keys.length
        ? keys.map((key) => ({ id: `call_${key}`, type: 'function', function: { name: tool.function.name, arguments: JSON.stringify({ charge_id: key }) } }))
        : [];
    const content = toolCalls.length ? null : keys.length ? `charged ${keys.join(', ')}${tool ? '' : ' (no charge tool offered)'}` : 'ok';
    json(res, 200, {
      id: 'chatcmpl-keyed',
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: body.model,
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content, refusal: null, ...(toolCalls.length && { tool_calls: toolCalls }) },
          finish_reason: toolCalls.length ? 'tool_calls' : 'stop',
          logprobs: null,
        },
      ],
      usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
    });
  }
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

// ── The tally ─────────────────────────────────────────────────────────────────────────────────────────

/** What must be zero once the load stopped and the space is quiet. */
export interface Problems {
  /** Sent envelopes never acknowledged (the SDK re-sends unacknowledged ones with the same id after reconnect). */
  unacknowledged: number;
  /** Acknowledged envelopes some member never got (summed over members). */
  lostAcknowledged: number;
  /** Envelopes (any kind) given to some application more than once. */
  duplicatesDelivered: number;
  /** Keys or request ids executed more than once (provider, ledger, bridge, agent). */
  toolsExecutedTwice: number;
  /** Tool calls without a result, questions to the agent without an answer. */
  unanswered: number;
}

export const NO_PROBLEMS: Problems = { unacknowledged: 0, lostAcknowledged: 0, duplicatesDelivered: 0, toolsExecutedTwice: 0, unanswered: 0 };

export interface Disruption {
  what: string;
  /** ms since the load started. */
  at: number;
  /** How long until the server (or an owner) was back, and until every client was ready again. */
  backMs?: number;
  clientsReadyMs?: number;
  notes?: string;
}

/** Members of the load that disconnect on purpose around a disruption (`ChatLoad`, `ToolLoad`). */
export interface AwayMember {
  goAway(): void;
  comeBack(): void;
}

/**
 * One disruption under load: `act` (a kill, a freeze) is given the time it began; the `away` members (often none)
 * disconnect a random while before it and come back a random while after. Then waits (bounded) until every client is
 * ready again. Returns what `act` returned, and when it began and the clients were ready, from `startedAt` (the load's start).
 */
export async function disrupt<T>(
  run: Pick<CrashRun, 'rng' | 'budget'> & { clients: SdkClients; startedAt: number },
  away: AwayMember[],
  act: (at: number) => Promise<T>,
): Promise<{ result: T; timing: Pick<Disruption, 'at' | 'clientsReadyMs'> }> {
  if (away.length) {
    for (const member of away) member.goAway();
    await loadFor(run.rng.between(100, 600));
  }
  const at = Date.now();
  const result = await act(at);
  if (away.length) {
    await loadFor(run.rng.between(200, 800));
    for (const member of away) member.comeBack();
  }
  const ready = await waitUntil(() => run.clients.notReady().length === 0, run.budget.bound(RECONNECT_BOUND_MS));
  return { result, timing: { at: at - run.startedAt, ...(ready && { clientsReadyMs: Date.now() - at }) } };
}

/**
 * Stops the load, sends each sender's marker, and waits (bounded) until the space is quiet: everything sent
 * acknowledged, everything acknowledged delivered to every member, every tool call and question settled. Then prints
 * the numbers and returns what must be zero.
 */
export async function quiesceAndTally(
  title: string,
  parts: { seed: number; clients: SdkClients; chat: ChatLoad; tools?: ToolLoad; disruptions: Disruption[]; loadMs: number; servers?: ServerProcess[] },
  boundMs: number,
): Promise<Problems> {
  const { chat, tools, clients } = parts;
  chat.stop();
  tools?.stop();
  chat.sendMarkers();
  const began = Date.now();
  const quiet = await waitUntil(
    () => chat.unacked === 0 && chat.totalMissing() === 0 && (tools?.settled() ?? true) && clients.notReady().length === 0,
    boundMs,
    50,
  );
  const quietMs = Date.now() - began;
  const duplicates = clients.duplicates();
  const toolReport = tools?.report();
  const missing = chat.missing();
  const problems: Problems = {
    unacknowledged: chat.unacked,
    lostAcknowledged: Object.values(missing).reduce((a, b) => a + b, 0),
    duplicatesDelivered: duplicates.total,
    toolsExecutedTwice: toolReport?.executedTwiceCount ?? 0,
    unanswered: toolReport?.unanswered ?? 0,
  };
  const lines = [
    `── ${title} ──`,
    `seed ${parts.seed} (replay: MEW_CRASH_SEED=${parts.seed})`,
    `load ran ${parts.loadMs} ms; ${quiet ? `quiet ${quietMs} ms after it stopped` : `NOT quiet within ${boundMs} ms after it stopped`}${clients.notReady().length ? `; not ready: ${clients.notReady().join(', ')}` : ''}`,
    `disruptions (${parts.disruptions.length}): ${parts.disruptions.map((d) => `${d.what} @${d.at}ms → back ${d.backMs ?? '?'}ms, clients ready ${d.clientsReadyMs ?? '?'}ms${d.notes ? ` (${d.notes})` : ''}`).join('; ')}`,
    ...(parts.servers ? [`server starts (ms to /healthz): ${parts.servers.map((s) => `${s.name} [${s.startMs.join(', ')}]`).join('; ')}`] : []),
    `disconnections (failed reconnect attempts included): ${clients.drops}; catch-ups: ${clients.catchUps} (incomplete: ${clients.incompleteCatchUps})`,
    `chat: sent ${chat.sent}, acked ${chat.acked}, unacked ${chat.unacked}, send errors ${chat.senders.reduce((n, s) => n + s.sendErrors, 0)}; per sender sent/acked ${chat.senders.map((s) => `${s.id} ${s.sent.size}/${s.acked.size}`).join(', ')}`,
    `chat delivered per member: ${JSON.stringify(chat.delivered())}`,
    `acknowledged but not delivered, per member: ${JSON.stringify(missing)}; away periods: ${chat.awayPeriods.map((p) => `${p.to === undefined ? '?' : p.to - p.from} ms`).join(', ') || 'none'}`,
    `duplicates delivered to applications: ${duplicates.total} ${JSON.stringify({ byClient: duplicates.byClient, byKind: duplicates.byKind })}${duplicates.samples.length ? ` e.g. ${duplicates.samples.join(' | ')}` : ''}`,
    ...(toolReport
      ? [
          `tools: provider ${JSON.stringify(toolReport.provider)}; ledger (away once) ${JSON.stringify(toolReport.ledger)}; bridge ${JSON.stringify(toolReport.bridge)}; agent ${JSON.stringify(toolReport.agent)}; invocations ${tools!.invocations}`,
          `tools executed twice (count, first keys): ${Object.entries(toolReport.executedTwice)
            .map(([server, keys]) => `${server} ${keys.length}${keys.length ? ` [${keys.slice(0, 4).join(', ')}${keys.length > 4 ? ', …' : ''}]` : ''}`)
            .join('; ')}`,
          ...(toolReport.errors.length ? [`tool call errors (first 3): ${toolReport.errors.join(' | ')}`] : []),
        ]
      : []),
    `PROBLEMS ${JSON.stringify(problems)}`,
  ];
  console.log(lines.join('\n'));
  return problems;
}
