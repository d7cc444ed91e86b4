import { maskText } from '../secrets/secret-masking';
import { appendFileSync, existsSync, mkdirSync, renameSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { RingBuffer } from '../collections/ring-buffer';

/** A log file grows to this size before it is rotated. @default 1 MiB */
export const PROCESS_LOG_MAX_BYTES = 1024 * 1024;
/** Rotated files kept beside the live one (`.1` newest). */
export const PROCESS_LOG_ROTATIONS = 2;
/** The newest lines kept in memory, shown when a process crashes. */
export const PROCESS_LOG_TAIL_LINES = 20;
const REDACTED = '[redacted]';
/** Secrets shorter than this are not searched for: redacting "ab" everywhere would garble the log. */
const MIN_SECRET_LENGTH = 8;

/**
 * One launched process's output: appended to a file (size-capped and rotated, so a chatty process cannot fill the
 * disk) with every secret it was given replaced by `[redacted]` (a token printed by mistake never reaches a log),
 * and its newest lines kept in memory for whoever asks why it crashed. Lines are written once per turn of the event
 * loop, in one write, so a chatty process costs the gateway one system call per burst rather than per line.
 */
export class ProcessLog {
  readonly tail = new RingBuffer<string>(PROCESS_LOG_TAIL_LINES);
  private size: number;
  private pending = '';
  private scheduled = false;

  constructor(
    readonly file: string,
    private readonly secrets: readonly string[],
    private readonly maxBytes = PROCESS_LOG_MAX_BYTES,
  ) {
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    try {
      this.size = statSync(file).size;
    } catch {
      this.size = 0;
    }
  }

  write(line: string): void {
    const clean = this.redact(line);
    this.tail.push(clean);
    this.pending += `${new Date().toISOString()} ${clean}\n`;
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.flush());
  }

  /** Writes what is pending now (also before the process's supervisor lets go of it). */
  flush(): void {
    this.scheduled = false;
    if (!this.pending) return;
    const text = this.pending;
    this.pending = '';
    if (this.size > 0 && this.size + text.length > this.maxBytes) this.rotate();
    appendFileSync(this.file, text, { mode: 0o600 });
    this.size += Buffer.byteLength(text);
  }

  /** The tokens it was given, then every secret of a known shape (a key an agent printed, a header it logged). */
  private redact(line: string): string {
    let out = line;
    for (const secret of this.secrets) if (secret.length >= MIN_SECRET_LENGTH) out = out.split(secret).join(REDACTED);
    return maskText(out);
  }

  private rotate(): void {
    for (let i = PROCESS_LOG_ROTATIONS - 1; i >= 1; i--) {
      if (existsSync(`${this.file}.${i}`)) renameSync(`${this.file}.${i}`, `${this.file}.${i + 1}`);
    }
    renameSync(this.file, `${this.file}.1`);
    this.size = 0;
  }
}
