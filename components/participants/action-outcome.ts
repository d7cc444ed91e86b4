'use client';

import { useEffect, useState } from 'react';
import { toast } from 'sonner';
import type { SpaceSession } from '@/components/session/space-session';
import type { AnyEnvelope, Kind } from '@/lib/protocol';
import type { OutgoingEnvelope } from '@/lib/sdk/mew-client';
import { GatewayRefusalError } from '@/lib/sdk/sdk-errors';

/** A gateway refusal of one of my envelopes (`system/error`, or an ack with `status: "rejected"`). */
export interface Refusal {
  /** The refusing envelope's id (also the toast id, so the same refusal is never toasted twice). */
  id?: string;
  code: string;
  message?: string;
}

/** Where an envelope I sent stands, from what came back. */
export interface Outcome {
  /** My envelope came back from the gateway: it was accepted and routed. */
  accepted: boolean;
  refusal?: Refusal;
  /** The first correlated reply of the kinds asked for (an invite-ack, a grant-ack…). */
  reply?: AnyEnvelope;
}

/** Something I sent, and the SDK's answers about it (`awaitReply`: the one place refusals are read). */
export interface TrackedSend {
  id: string;
  /** Resolves with my echo; rejects with the gateway's refusal. */
  accepted: Promise<AnyEnvelope>;
  /** The reply of the kinds asked for, when some were. */
  reply?: Promise<AnyEnvelope>;
}

/** Long enough for a queued send to go out after a reconnect; after that nobody is waiting for the answer. */
const WATCH_MS = 120_000;

function refusalOf(error: unknown): Refusal | undefined {
  return error instanceof GatewayRefusalError ? { id: error.envelopeId, code: error.code, message: error.payload.message } : undefined;
}

/** An ack that says no (`status: "rejected"`) is a refusal too. */
function rejectingAck(reply: AnyEnvelope): Refusal | undefined {
  const payload = (reply.payload ?? {}) as { status?: unknown; message?: unknown };
  return payload.status === 'rejected' ? { id: reply.id, code: 'rejected', message: typeof payload.message === 'string' ? payload.message : undefined } : undefined;
}

/** "grant_exceeds_own_capabilities: you do not hold …" */
export function describeRefusal(refusal: Refusal): string {
  return refusal.message ? `${refusal.code}: ${refusal.message}` : refusal.code;
}

/** The outcome of a tracked send as React state: sending → accepted (and replied) or refused. */
export function useOutcome(tracked: TrackedSend | undefined): Outcome | undefined {
  const [state, setState] = useState<{ id: string; outcome: Outcome }>();
  useEffect(() => {
    if (!tracked) return;
    let live = true;
    const update = (change: Partial<Outcome>) => {
      if (!live) return;
      setState((prev) => ({ id: tracked.id, outcome: { ...(prev?.id === tracked.id ? prev.outcome : { accepted: false }), ...change } }));
    };
    tracked.accepted.then(
      () => update({ accepted: true }),
      (error: unknown) => {
        const refusal = refusalOf(error);
        if (refusal) update({ refusal });
      },
    );
    tracked.reply?.then(
      (reply) => update({ reply, ...(rejectingAck(reply) && { refusal: rejectingAck(reply) }) }),
      () => undefined, // a refusal already arrives through `accepted`
    );
    return () => {
      live = false;
    };
  }, [tracked]);
  if (!tracked) return undefined;
  return state?.id === tracked.id ? state.outcome : { accepted: false };
}

export interface TrackOptions {
  /** Toasted when the gateway accepts it (my echo arrives). */
  success?: string;
  /** Also wait for a reply of these kinds (an invite-ack, a grant-ack); one that says `rejected` is toasted too. */
  replyKinds?: readonly Kind[];
}

/**
 * Sends through the SDK and toasts the outcome: a local failure at once, a gateway refusal, or the success message
 * when the gateway accepts it, whatever happens to the component that sent it (a dialog closed meanwhile still gets
 * its toast).
 */
export function sendTracked(session: SpaceSession, label: string, envelope: OutgoingEnvelope, options: TrackOptions = {}): TrackedSend | undefined {
  let tracked: TrackedSend;
  try {
    const sent = session.participant.send(envelope);
    tracked = {
      id: sent.id,
      accepted: session.participant.awaitReply(sent.id, { replyKinds: [], timeoutMs: WATCH_MS }),
      ...(options.replyKinds?.length && { reply: session.participant.awaitReply(sent.id, { replyKinds: options.replyKinds, timeoutMs: WATCH_MS }) }),
    };
  } catch (error) {
    toast.error(`${label}: not sent`, { description: (error as Error).message });
    return undefined;
  }
  const refused = (refusal: Refusal) => toast.error(`${label}: refused`, { id: refusal.id, description: describeRefusal(refusal) });
  tracked.accepted.then(
    () => options.success && toast.success(options.success),
    (error: unknown) => {
      const refusal = refusalOf(error);
      if (refusal) refused(refusal);
    },
  );
  tracked.reply?.then(
    (reply) => {
      const refusal = rejectingAck(reply);
      if (refusal) refused(refusal);
    },
    () => undefined,
  );
  return tracked;
}
