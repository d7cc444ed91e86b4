import { randomBytes } from 'node:crypto';
import { HISTORY_START_CURSOR } from '../protocol';
import { GatewayError } from './gateway-error';

/** Where a cursor points: after `seq` of the numbering named `epoch`, or before everything retained. */
export type HistoryPosition = { epoch: string; seq: number } | 'start';

const CURSOR_PATTERN = /^([0-9a-f]{8})-(0|[1-9]\d{0,15})$/;

/** A fresh name for a numbering that starts from nothing (8 hex characters). */
export function newHistoryEpoch(): string {
  return randomBytes(4).toString('hex');
}

/** The `cursor` of the envelope numbered `seq`: `<epoch>-<seq>`, opaque to clients. */
export function formatCursor(epoch: string, seq: number): string {
  return `${epoch}-${seq}`;
}

/** Reads an `after=` value; anything the gateway could not have issued is `invalid_cursor`. */
export function parseCursor(text: string): HistoryPosition {
  if (text === HISTORY_START_CURSOR) return 'start';
  const match = CURSOR_PATTERN.exec(text);
  const seq = match ? Number(match[2]) : NaN;
  if (!match || !Number.isSafeInteger(seq)) {
    throw new GatewayError(
      'invalid_cursor',
      `"after" must be a cursor the gateway issued (<epoch>-<seq>) or ${HISTORY_START_CURSOR}, not ${JSON.stringify(text.slice(0, 64))}`,
    );
  }
  return { epoch: match[1], seq };
}
