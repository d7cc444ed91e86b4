/** An open stream: who owns it, who may write `#id#` frames to it, and who receives them. */
export interface OpenStream {
  id: string;
  owner: string;
  authorizedWriters: ReadonlySet<string>;
  direction: string;
  encoding: string;
  /** Participants that receive the frames (plus the owner); undefined = everyone in the space. */
  target?: readonly string[];
  description?: string;
  /** The `stream/request` this answered, and the `stream/open` the gateway sent. */
  requestId: string;
  openId: string;
  /** Pending close after the owner left, cancelled if it comes back within the grace period. */
  orphanTimer?: ReturnType<typeof setTimeout>;
}

/** An open stream as a copy of the registry keeps it (cluster mode: in Redis, for the space's next owner). */
export type StoredStream = Omit<OpenStream, 'authorizedWriters' | 'orphanTimer'> & { authorizedWriters: string[] };

/** A copy of the registry kept elsewhere: what it held, and every change (the whole list; it must not throw). */
export interface StreamReplica {
  initial?: readonly StoredStream[];
  replicate(streams: StoredStream[]): void;
}

/** The open streams of one space. */
export class StreamRegistry {
  private readonly streams = new Map<string, OpenStream>();

  constructor(private readonly replica?: StreamReplica) {
    for (const stream of replica?.initial ?? []) this.streams.set(stream.id, { ...stream, authorizedWriters: new Set(stream.authorizedWriters) });
  }

  add(stream: OpenStream): void {
    this.streams.set(stream.id, stream);
    this.replicate();
  }

  get(id: string): OpenStream | undefined {
    return this.streams.get(id);
  }

  /** The stream a `stream/close` names: by `payload.stream_id`, or by correlating its `stream/open`. */
  find(streamId: unknown, correlationIds: readonly string[] | undefined): OpenStream | undefined {
    if (typeof streamId === 'string') return this.streams.get(streamId);
    for (const stream of this.streams.values()) if (correlationIds?.includes(stream.openId)) return stream;
    return undefined;
  }

  delete(id: string): OpenStream | undefined {
    const stream = this.streams.get(id);
    if (!stream) return undefined;
    clearTimeout(stream.orphanTimer);
    this.streams.delete(id);
    this.replicate();
    return stream;
  }

  /** Every open stream. */
  all(): OpenStream[] {
    return [...this.streams.values()];
  }

  private replicate(): void {
    this.replica?.replicate(
      [...this.streams.values()].map(({ orphanTimer: _timer, authorizedWriters, ...stream }) => ({ ...stream, authorizedWriters: [...authorizedWriters] })),
    );
  }

  /** Cancels pending orphan closes (gateway shutdown: there is nobody left to tell). */
  cancelOrphanTimers(): void {
    for (const stream of this.streams.values()) clearTimeout(stream.orphanTimer);
  }

  ownedBy(participantId: string): OpenStream[] {
    return [...this.streams.values()].filter((s) => s.owner === participantId);
  }

  /** The shape of `system/welcome.active_streams`. */
  list(): { stream_id: string; owner: string; direction: string; authorized_writers: string[]; encoding: string; target?: string[] }[] {
    return [...this.streams.values()].map((s) => ({
      stream_id: s.id,
      owner: s.owner,
      direction: s.direction,
      authorized_writers: [...s.authorizedWriters],
      encoding: s.encoding,
      ...(s.target ? { target: [...s.target] } : {}),
    }));
  }
}
