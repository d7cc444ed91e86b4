import { EventHub, type Unsubscribe } from './event-hub';

/** Where a reasoning sequence mirrors its thoughts: an open stream. */
export interface ReasoningMirror {
  write(text: string): boolean;
  close(reason: string): void;
}

/** Why a sequence was cancelled and by whom. */
export interface ReasoningCancel {
  reason?: string;
  by: string;
}

/**
 * A reasoning sequence I started (spec §3.5): the `reasoning/start` envelope's id is the `context` of every
 * thought, the conclusion and a cancel. Once concluded or cancelled, by me or by another participant's
 * `reasoning/cancel`, further calls are no-ops that return false, so a long-running loop can keep calling
 * `thought()` and simply check the result (or `cancelled`) to stop.
 *
 * @example
 * const reasoning = participant.reasoning.start({ correlatedTo: request.id, message: 'Planning' });
 * reasoning.onCancel(({ by }) => console.log('cancelled by', by));
 * if (!reasoning.thought('First, read the file')) return;
 * reasoning.conclude('The file is valid YAML');
 */
export interface ReasoningHandle {
  /** The `reasoning/start` envelope's id, i.e. the context of the sequence. */
  readonly id: string;
  readonly cancelled: boolean;
  /** Set once cancelled. */
  readonly cancellation?: ReasoningCancel;
  /** Concluded or cancelled. */
  readonly ended: boolean;
  /** Sends a `reasoning/thought` (and mirrors it into the stream, if any). False once ended. */
  thought(text: string): boolean;
  /**
   * Writes a piece of text (e.g. a model's token delta) into the mirror stream only, as plain text, so watchers see
   * an answer form as it is generated. No envelope. False once ended or without a mirror.
   */
  delta(text: string): boolean;
  /** Sends `reasoning/conclusion` and ends the sequence. False if it had already ended. */
  conclude(text: string): boolean;
  /** Sends `reasoning/cancel` and ends the sequence. False if it had already ended. */
  cancel(reason?: string): boolean;
  /** Called once if the sequence is cancelled (by me or anyone else). */
  onCancel(listener: (cancel: ReasoningCancel) => void): Unsubscribe;
}

/** Sends one envelope of the sequence (the participant fills in the context). */
export type SendReasoning = (kind: 'reasoning/thought' | 'reasoning/conclusion' | 'reasoning/cancel', payload: Record<string, unknown>) => void;

export class ReasoningSession implements ReasoningHandle {
  private readonly hub = new EventHub<{ cancel: ReasoningCancel }>();
  private _cancellation?: ReasoningCancel;
  private _ended = false;
  private mirror?: ReasoningMirror;
  /** Thoughts written before the mirror stream opened; flushed when it does. */
  private unmirrored?: string[];

  constructor(
    readonly id: string,
    private readonly me: string,
    private readonly sendEnvelope: SendReasoning,
    /** Called once when the sequence ends, so the participant can stop tracking it. */
    private readonly onEnd: () => void,
    mirrorRequested = false,
  ) {
    if (mirrorRequested) this.unmirrored = [];
  }

  get cancelled(): boolean {
    return this._cancellation !== undefined;
  }

  get cancellation(): ReasoningCancel | undefined {
    return this._cancellation;
  }

  get ended(): boolean {
    return this._ended;
  }

  thought(text: string): boolean {
    if (this._ended) return false;
    this.sendEnvelope('reasoning/thought', { message: text });
    // One JSON object per frame keeps thought boundaries, so a reader shows each thought once, not run together.
    const frame = JSON.stringify({ message: text });
    if (this.mirror) this.mirror.write(frame);
    else this.unmirrored?.push(frame);
    return true;
  }

  delta(text: string): boolean {
    if (this._ended || (!this.mirror && !this.unmirrored) || text === '') return false;
    if (this.mirror) this.mirror.write(text);
    else this.unmirrored!.push(text);
    return true;
  }

  conclude(text: string): boolean {
    if (this._ended) return false;
    this.sendEnvelope('reasoning/conclusion', { message: text });
    this.end('complete');
    return true;
  }

  cancel(reason?: string): boolean {
    if (this._ended) return false;
    this.sendEnvelope('reasoning/cancel', reason === undefined ? {} : { reason });
    this.markCancelled({ by: this.me, ...(reason !== undefined && { reason }) });
    return true;
  }

  onCancel(listener: (cancel: ReasoningCancel) => void): Unsubscribe {
    return this.hub.on('cancel', listener);
  }

  /** Another participant sent `reasoning/cancel` for this context. */
  cancelledBy(by: string, reason?: string): void {
    if (!this._ended) this.markCancelled({ by, ...(reason !== undefined && { reason }) });
  }

  /** The mirror stream opened: flush what was thought meanwhile, or close it at once if the sequence already ended. */
  attachMirror(mirror: ReasoningMirror): void {
    if (this._ended) return mirror.close(this.cancelled ? 'cancelled' : 'complete');
    this.mirror = mirror;
    for (const text of this.unmirrored ?? []) mirror.write(text);
    this.unmirrored = undefined;
  }

  /** The mirror stream could not be opened: stop buffering for it. */
  dropMirror(): void {
    this.unmirrored = undefined;
  }

  private markCancelled(cancel: ReasoningCancel): void {
    this._cancellation = cancel;
    this.end('cancelled');
    this.hub.emit('cancel', cancel);
  }

  private end(streamReason: string): void {
    this._ended = true;
    this.unmirrored = undefined;
    this.mirror?.close(streamReason);
    this.mirror = undefined;
    this.onEnd();
  }
}
