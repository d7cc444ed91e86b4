import { reasoningAction, reasoningText } from '@/lib/protocol';
import type { StoreEnvelope } from '@/lib/store';
import { isRecord } from '@/lib/sdk/model/store-envelope';

/** Longest one-line summary shown in a collapsed log row. */
const SUMMARY_CHARS = 160;

function text(value: unknown): string | undefined {
  return typeof value === 'string' ? value : typeof value === 'number' ? String(value) : undefined;
}

function clip(value: string): string {
  const line = value.replace(/\s+/g, ' ').trim();
  return line.length > SUMMARY_CHARS ? `${line.slice(0, SUMMARY_CHARS - 1)}…` : line;
}

function compactJson(value: unknown): string {
  const json = JSON.stringify(value);
  return json === undefined || json === '{}' ? '' : json;
}

/** A one-line gist of an envelope's payload for the log: the chat text, the MCP method, the status numbers, … */
export function envelopeSummary(envelope: StoreEnvelope): string {
  const p = isRecord(envelope.payload) ? envelope.payload : {};
  const kind = envelope.kind;
  let out: string | undefined;
  if (kind === 'chat') out = text(p.text);
  else if (kind.startsWith('reasoning/')) {
    // The spec's `message`, or the reference implementation's `reasoning` / `input` and a ReAct step's `action`.
    const action = reasoningAction(p)?.action;
    out = [reasoningText(p) ?? text(p.reason), action && `→ ${action}`].filter(Boolean).join(' ');
  } else if (kind === 'chat/acknowledge') out = text(p.status);
  else if (kind === 'chat/cancel' || kind === 'mcp/reject' || kind === 'mcp/withdraw') out = text(p.reason);
  else if (kind === 'system/error') out = [text(p.error), text(p.message)].filter(Boolean).join(': ');
  else if (kind === 'system/presence') out = `${text(p.event) ?? ''} ${isRecord(p.participant) ? (text(p.participant.id) ?? '') : ''}`;
  else if (kind === 'system/welcome' && isRecord(p.you)) {
    out = `welcome ${text(p.you.id) ?? ''}${Array.isArray(p.participants) ? `, ${p.participants.length} others present` : ''}`;
  } else if (kind === 'mcp/request' || kind === 'mcp/proposal') {
    const params = isRecord(p.params) ? p.params : {};
    out = [text(p.method), text(params.name) ?? text(params.uri)].filter(Boolean).join(' ');
  } else if (kind === 'mcp/response') {
    out = isRecord(p.error) ? `error: ${text(p.error.message) ?? ''}` : 'result';
  } else if (kind === 'participant/status') {
    out = Object.entries(p)
      .filter(([, v]) => typeof v === 'number' || typeof v === 'string')
      .map(([k, v]) => `${k} ${v}`)
      .join(' · ');
  }
  return clip(out || compactJson(p));
}

/** Tailwind classes of a kind's badge, by family. */
export function kindTone(kind: string): string {
  if (kind === 'system/error') return 'bg-red-950 text-red-300 border-red-900';
  if (kind.startsWith('mcp/')) return 'bg-sky-950 text-sky-300 border-sky-900';
  if (kind.startsWith('chat')) return 'bg-emerald-950 text-emerald-300 border-emerald-900';
  if (kind.startsWith('reasoning/')) return 'bg-violet-950 text-violet-300 border-violet-900';
  if (kind.startsWith('participant/')) return 'bg-amber-950 text-amber-300 border-amber-900';
  if (kind.startsWith('capability/') || kind.startsWith('space/')) return 'bg-orange-950 text-orange-300 border-orange-900';
  if (kind.startsWith('stream/')) return 'bg-teal-950 text-teal-300 border-teal-900';
  return 'bg-slate-900 text-slate-300 border-slate-700';
}

/** The first 8 characters of an id (UUIDs differ there), for compact display; the full id is in the title. */
export function shortId(id: string): string {
  return id.length > 10 ? id.slice(0, 8) : id;
}
