import { isRecord, str } from './store-envelope';

const decoder = new TextDecoder();

/** What one stream frame contributes to a reasoning thread. */
export interface FrameContent {
  /** Thoughts carried as JSON (`{"message"}`, `{"payload":{"message"}}`, or a mirrored `reasoning/thought` envelope). */
  thoughts: string[];
  /** Anything else, as plain text (token deltas, log lines). */
  text: string;
}

function thoughtOf(value: unknown): string | undefined {
  if (!isRecord(value)) return undefined;
  // A mirrored envelope of another kind (e.g. a conclusion) is not a thought; the envelope itself carries it.
  if (value.kind !== undefined && value.kind !== 'reasoning/thought') return undefined;
  return str(value.message) ?? (isRecord(value.payload) ? str(value.payload.message) : undefined) ?? str(value.text);
}

/**
 * Reads a stream frame's data: JSON objects (one per frame or one per line, as with `jsonl`) that carry a message
 * are thoughts; everything else is plain text. Binary data is read as UTF-8.
 *
 * @example
 * readFrame('{"message":"checking the YAML"}'); // { thoughts: ['checking the YAML'], text: '' }
 * readFrame('partial tok'); // { thoughts: [], text: 'partial tok' }
 */
export function readFrame(data: string | Uint8Array): FrameContent {
  const raw = typeof data === 'string' ? data : decoder.decode(data);
  const trimmed = raw.trim();
  if (!trimmed.startsWith('{')) return { thoughts: [], text: raw };
  const whole = tryParse(trimmed);
  if (whole !== undefined) {
    const message = thoughtOf(whole);
    return message === undefined ? { thoughts: [], text: '' } : { thoughts: [message], text: '' };
  }
  const thoughts: string[] = [];
  let text = '';
  for (const line of raw.split('\n')) {
    if (line.trim() === '') continue;
    const parsed = tryParse(line.trim());
    if (parsed === undefined) text += `${line}\n`;
    else {
      const message = thoughtOf(parsed);
      if (message !== undefined) thoughts.push(message);
    }
  }
  return { thoughts, text };
}

function tryParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
