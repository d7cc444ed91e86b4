import { createWriteStream, mkdirSync, type WriteStream } from 'node:fs';
import { dirname } from 'node:path';
import { MEWClient } from '../sdk/mew-client';

export interface EnvelopeLogObserverOptions {
  gateway: string;
  space: string;
  token: string;
  /** Where every envelope received is appended, one JSON object a line. */
  file: string;
}

/**
 * The reference implementation's observer participants (`auto_connect: true` with `output_log`): the server connects
 * the participant itself and appends every envelope it receives — its own echoes, others' traffic, welcomes and
 * errors addressed to it — to a file as JSON lines, which scenario scripts read back. Writes are buffered by the
 * stream (never one synchronous write per envelope); after a reconnect the client catches up what it missed, so the
 * file has no gap the gateway's history could fill.
 *
 * @example
 * const observer = new EnvelopeLogObserver({ gateway: 'ws://127.0.0.1:3000/ws', space: 'demo', token, file: 'logs/client.jsonl' });
 * await observer.start();
 */
export class EnvelopeLogObserver {
  private readonly client: MEWClient;
  private out?: WriteStream;

  constructor(private readonly options: EnvelopeLogObserverOptions) {
    this.client = new MEWClient({ gateway: options.gateway, space: options.space, token: options.token });
    this.client.on('message', (envelope) => this.out?.write(`${JSON.stringify(envelope)}\n`));
  }

  /** Opens the file (creating its folder) and joins; resolves once the first welcome arrived. */
  async start(): Promise<void> {
    mkdirSync(dirname(this.options.file), { recursive: true });
    this.out = createWriteStream(this.options.file, { flags: 'a' });
    await this.client.connect();
  }

  /** Leaves the space and resolves once everything received is on disk. */
  async stop(): Promise<void> {
    this.client.disconnect();
    const out = this.out;
    this.out = undefined;
    if (out) await new Promise<void>((done) => out.end(done));
  }
}
