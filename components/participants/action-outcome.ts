'use client';

import { useRef } from 'react';
import { toast } from 'sonner';
import { useSpace, type SpaceSession } from '@/components/session/space-session';
import type { SentEnvelope } from '@/lib/sdk/mew-client';
import type { LogEntry, SpaceState, SpaceStore } from '@/lib/store';

/** A gateway refusal of one of my envelopes (`system/error`, or an ack with `status: "rejected"`). */
export interface Refusal {
  /** The refusing envelope's id (also the toast id, so the same refusal is never toasted twice). */
  id: string;
  code: string;
  message?: string;
}

/** Where an envelope I sent stands, from what came back. */
export interface Outcome {
  /** My envelope came back from the gateway: it was accepted and routed. */
  accepted: boolean;
  refusal?: Refusal;
  /** The first correlated reply of the kinds asked for (an invite-ack, a grant-ack…). */
  reply?: LogEntry;
}

const ERROR_KINDS = ['system/error'] as const;
const NO_KINDS: readonly string[] = [];
/** Long enough for a queued send to go out after a reconnect; after that nobody is waiting for a toast. */
const WATCH_MS = 120_000;

/** The first envelope in the log that names `sentId` in its `correlation_id` and has one of `kinds`. O(replies). */
export function correlatedReply(state: SpaceState, sentId: string, kinds: readonly string[]): LogEntry | undefined {
  if (kinds.length === 0) return undefined;
  for (const id of state.log.entries.childrenOf(sentId)) {
    const entry = state.log.entries.get(id);
    if (entry && kinds.includes(entry.envelope.kind)) return entry;
  }
  return undefined;
}

function refusalOf(entry: LogEntry | undefined): Refusal | undefined {
  if (!entry) return undefined;
  const payload = (entry.envelope.payload ?? {}) as Record<string, unknown>;
  if (entry.envelope.kind !== 'system/error' && payload.status !== 'rejected') return undefined;
  return {
    id: entry.envelope.id,
    code: typeof payload.error === 'string' ? payload.error : 'refused',
    message: typeof payload.message === 'string' ? payload.message : undefined,
  };
}

/** "grant_exceeds_own_capabilities: you do not hold …" */
export function describeRefusal(refusal: Refusal): string {
  return refusal.message ? `${refusal.code}: ${refusal.message}` : refusal.code;
}

/**
 * The outcome of `sentId`, read from the store's log by correlation (O(1) per store change). Results are kept
 * once seen, because the log is a ring and will evict them.
 */
export function useOutcome(sentId: string | undefined, replyKinds: readonly string[] = NO_KINDS): Outcome | undefined {
  const error = useSpace((s) => (sentId ? correlatedReply(s, sentId, ERROR_KINDS) : undefined));
  const echoed = useSpace((s) => (sentId ? s.log.entries.get(sentId) !== undefined : false));
  const reply = useSpace((s) => (sentId ? correlatedReply(s, sentId, replyKinds) : undefined));
  const kept = useRef<{ id?: string; accepted: boolean; error?: LogEntry; reply?: LogEntry }>({ accepted: false });
  if (kept.current.id !== sentId) kept.current = { id: sentId, accepted: false };
  // Idempotent updates only (safe if React renders twice).
  if (echoed) kept.current.accepted = true;
  if (error) kept.current.error = error;
  if (reply) kept.current.reply = reply;
  if (!sentId) return undefined;
  const { accepted, error: e, reply: r } = kept.current;
  return { accepted, refusal: refusalOf(e) ?? refusalOf(r), reply: r };
}

export interface TrackOptions {
  /** Toasted when the gateway accepts it (my echo arrives). */
  success?: string;
  /** Also toast a refusal carried by these reply kinds (an invite-ack with `status: "rejected"`). */
  replyKinds?: readonly string[];
}

/**
 * Sends through the SDK and toasts the outcome: a local failure at once, a gateway refusal (correlated by id) or
 * the success message when the echo arrives. Watching is O(1) per store change and stops at the first outcome,
 * whatever happens to the component that sent it (a dialog closed meanwhile still gets its toast).
 */
export function sendTracked(session: SpaceSession, label: string, send: () => SentEnvelope, options: TrackOptions = {}): SentEnvelope | undefined {
  let sent: SentEnvelope;
  try {
    sent = send();
  } catch (error) {
    toast.error(`${label}: not sent`, { description: (error as Error).message });
    return undefined;
  }
  watch(session.store, sent.id, label, options);
  return sent;
}

function watch(store: SpaceStore, sentId: string, label: string, options: TrackOptions): void {
  const replyKinds = options.replyKinds ?? NO_KINDS;
  let stop = () => {};
  const check = (state: SpaceState) => {
    const refusal = refusalOf(correlatedReply(state, sentId, ERROR_KINDS)) ?? refusalOf(correlatedReply(state, sentId, replyKinds));
    if (refusal) {
      toast.error(`${label}: refused`, { id: refusal.id, description: describeRefusal(refusal) });
      stop();
    } else if (state.log.entries.get(sentId)) {
      if (options.success) toast.success(options.success);
      stop();
    }
  };
  const unsubscribe = store.subscribe(check);
  const timer = setTimeout(() => stop(), WATCH_MS);
  stop = () => {
    unsubscribe();
    clearTimeout(timer);
  };
}
