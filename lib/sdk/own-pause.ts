import { isPauseExemptKind } from '../protocol';
import { ParticipantPausedError } from './sdk-errors';

/** A pause in effect. */
export interface PauseInfo {
  /** Who paused me. */
  by: string;
  /** The `participant/pause` envelope's id. */
  pauseId: string;
  reason?: string;
  /** When it lifts by itself (ms since epoch), if it had `timeout_seconds`. */
  until?: number;
}

/**
 * My own pause (spec §3.9.1), mirrored locally so a paused participant's sends fail at once with a clear error
 * instead of a round trip to the gateway's `participant_paused` refusal. The kinds that stay allowed are the
 * gateway's own list, `PAUSE_EXEMPT_KINDS` (acknowledgements, cancellations, status, responses).
 *
 * @example
 * const pause = new OwnPause();
 * pause.pause({ by: 'ops', pauseId: 'p-1' }, 60, () => console.log('auto-resumed'));
 * pause.assertMaySend('chat'); // throws ParticipantPausedError
 * pause.assertMaySend('participant/status'); // fine
 */
export class OwnPause {
  private info?: PauseInfo;
  private timer?: ReturnType<typeof setTimeout>;

  get current(): PauseInfo | undefined {
    return this.info;
  }

  /** Pauses; with `timeoutSeconds` it lifts by itself after that long and `onExpire` runs. */
  pause(info: Omit<PauseInfo, 'until'>, timeoutSeconds: number | undefined, onExpire: () => void): void {
    clearTimeout(this.timer);
    this.info = { ...info, ...(timeoutSeconds !== undefined && { until: Date.now() + timeoutSeconds * 1000 }) };
    if (timeoutSeconds === undefined) return;
    this.timer = setTimeout(() => {
      this.info = undefined;
      onExpire();
    }, timeoutSeconds * 1000);
  }

  /** Lifts the pause; false if there was none. */
  resume(): boolean {
    clearTimeout(this.timer);
    const was = this.info !== undefined;
    this.info = undefined;
    return was;
  }

  /** Throws `ParticipantPausedError` when paused and `kind` is not exempt. */
  assertMaySend(kind: string): void {
    if (this.info && !isPauseExemptKind(kind)) throw new ParticipantPausedError(kind, this.info.by, this.info.reason);
  }
}
