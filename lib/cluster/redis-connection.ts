import { Redis, type RedisOptions } from 'ioredis';

/**
 * While Redis stays unreachable, each connection says so at most this often; the failures in between are counted
 * into the next line. Its reconnect attempts (ioredis backs off to one every ~5 s) would otherwise print a line each.
 */
export const REDIS_REPORT_INTERVAL_MS = 30_000;

/** Error codes that mean "cannot reach Redis" (as opposed to Redis answering with an error). */
const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'EPIPE']);
/** Redis replies that mean the URL's credentials are wrong: retrying will not help until someone fixes them. */
const CREDENTIALS_ERROR = /^(WRONGPASS|NOAUTH|NOPERM)\b/;

/** What a connection is for, in the words of its log lines. */
export interface RedisRole {
  /** Who speaks, e.g. `node a` or `node a, owner of s1`. */
  who: string;
  /** What goes wrong while the connection is down, e.g. `spaces owned here stop accepting messages until it is back`. */
  impact: string;
}

export interface RedisReportOptions {
  /** @default REDIS_REPORT_INTERVAL_MS */
  intervalMs?: number;
  /** @default console.error */
  log?: (line: string) => void;
}

/** The URL as logs may show it: the password masked (the user name stays, it tells which account). */
export function maskRedisUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (!parsed.password) return url;
    parsed.password = '***';
    return parsed.toString();
  } catch {
    return url.replace(/\/\/([^@/]*)@/, '//***@');
  }
}

/**
 * The one way cluster mode opens a Redis connection: with an error listener (without one, ioredis prints
 * `Unhandled error event` and a stack for every reconnect attempt) that says, at most once per interval, what is
 * wrong, what happens meanwhile and that it retries, and says once when Redis is reachable again.
 */
export function openRedis(url: string, role: RedisRole, options: RedisOptions = {}, report: RedisReportOptions = {}): Redis {
  const redis = new Redis(url, options);
  watchRedis(redis, url, role, report);
  return redis;
}

const reporters = new WeakMap<Redis, ConnectionReporter>();

/** Gives an existing connection the error listener `openRedis` gives (for connections made elsewhere). */
export function watchRedis(redis: Redis, url: string, role: RedisRole, report: RedisReportOptions = {}): void {
  if (reporters.has(redis)) return;
  const reporter = new ConnectionReporter(
    maskRedisUrl(url),
    role,
    report.intervalMs ?? REDIS_REPORT_INTERVAL_MS,
    report.log ?? ((line) => console.error(line)),
  );
  reporters.set(redis, reporter);
  redis.on('error', (error: Error) => reporter.failed(error));
  redis.on('ready', () => reporter.ready());
}

/**
 * A command on `redis` failed (`what` failed, and whatever the caller does next). Said at most once per interval
 * per `what`, and not at all while the connection's own outage is being reported: that line already says why.
 */
export function reportCommandFailure(redis: Redis, what: string, error: Error): void {
  const reporter = reporters.get(redis);
  if (reporter) reporter.commandFailed(what, error);
  else console.error(`[cluster] ${what}: ${error.message}`);
}

/** One connection's outage as told so far. */
interface Outage {
  since: number;
  lastReport: number;
  /** Failures since the last line. */
  unreported: number;
  failures: number;
}

class ConnectionReporter {
  private outage?: Outage;
  /** When each kind of failed command was last logged. */
  private readonly commandReports = new Map<string, { at: number; unreported: number }>();

  constructor(
    private readonly url: string,
    private readonly role: RedisRole,
    private readonly intervalMs: number,
    private readonly log: (line: string) => void,
  ) {}

  failed(error: Error): void {
    const now = Date.now();
    const outage = this.outage;
    if (outage) {
      outage.failures++;
      if (now - outage.lastReport < this.intervalMs) {
        outage.unreported++;
        return;
      }
      const more = outage.unreported > 0 ? `, ${outage.unreported} more failed attempt${outage.unreported === 1 ? '' : 's'} since the last report` : '';
      this.log(`[cluster] ${this.role.who}: Redis at ${this.url} ${describe(error)} for ${seconds(now - outage.since)}${more}; retrying — ${this.role.impact}`);
      outage.lastReport = now;
      outage.unreported = 0;
      return;
    }
    this.outage = { since: now, lastReport: now, unreported: 0, failures: 1 };
    this.log(`[cluster] ${this.role.who}: Redis at ${this.url} ${describe(error)}; retrying — ${this.role.impact}`);
  }

  ready(): void {
    const outage = this.outage;
    if (!outage) return;
    this.outage = undefined;
    this.log(
      `[cluster] ${this.role.who}: Redis at ${this.url} is reachable again after ${seconds(Date.now() - outage.since)} (${outage.failures} failed attempt${outage.failures === 1 ? '' : 's'})`,
    );
  }

  commandFailed(what: string, error: Error): void {
    if (this.outage) return;
    const now = Date.now();
    const last = this.commandReports.get(what);
    if (last && now - last.at < this.intervalMs) {
      last.unreported++;
      return;
    }
    const more = last && last.unreported > 0 ? ` (${last.unreported} more like it since the last report)` : '';
    this.commandReports.set(what, { at: now, unreported: 0 });
    this.log(`[cluster] ${this.role.who}: ${what}: ${error.message}${more}`);
  }
}

/** What is wrong, as the middle of a sentence: `is unreachable (ECONNREFUSED)`. */
function describe(error: Error): string {
  const code = errorCode(error);
  if (UNREACHABLE_CODES.has(code)) return `is unreachable (${code})`;
  if (CREDENTIALS_ERROR.test(error.message)) return `refuses the credentials in MEW_REDIS_URL (${code}): fix them`;
  return `fails (${code})`;
}

/** `ECONNREFUSED` and the like; an AggregateError (every address of a host refused) carries it on its parts. */
function errorCode(error: Error): string {
  const withCode = error as Error & { code?: string; errors?: { code?: string }[] };
  const code = withCode.code ?? withCode.errors?.find((e) => e.code)?.code;
  if (code) return code;
  const word = /^[A-Z]{3,}\b/.exec(error.message)?.[0];
  return word ?? error.message;
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}
