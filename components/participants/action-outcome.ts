'use client';

import { useEffect, useState } from 'react';
import { toast } from 'sonner';
import type { AnyEnvelope } from '@/lib/protocol';
import type { Operation } from '@/lib/sdk/participant-namespaces';
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
  /** The operation's ack, when it has one (an invite-ack, a grant-ack). */
  ack?: AnyEnvelope;
}

/** Something I sent through `participant.operate`, and the SDK's answers about it (the one place refusals are read). */
export type TrackedSend = Operation & { ack?: Promise<AnyEnvelope> };

function refusalOf(error: unknown): Refusal | undefined {
  return error instanceof GatewayRefusalError ? { id: error.envelopeId, code: error.code, message: error.payload.message } : undefined;
}

/** An ack that says no (`status: "rejected"`) is a refusal too. */
function rejectingAck(reply: AnyEnvelope): Refusal | undefined {
  const payload = (reply.payload ?? {}) as { status?: unknown; message?: unknown };
  return payload.status === 'rejected'
    ? { id: reply.id, code: 'rejected', message: typeof payload.message === 'string' ? payload.message : undefined }
    : undefined;
}

/**
 * A rejection handler for anything I sent (an operation's `accepted`, a decision's `outcome`): toasts a gateway
 * refusal, keyed by the refusal's envelope id like the page-wide error toasts, so it is one toast; other failures (a
 * tool error, a timeout) show where they belong instead.
 *
 * @example
 * participant.proposals.reject(id, 'unsafe').outcome.catch(toastRefusal('Rejection of write_file'));
 */
export function toastRefusal(label: string): (error: unknown) => void {
  return (error) => {
    const refusal = refusalOf(error);
    if (refusal) toast.error(`${label}: refused`, { id: refusal.id, description: describeRefusal(refusal) });
  };
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
    const id = tracked.envelope.id;
    const update = (change: Partial<Outcome>) => {
      if (!live) return;
      setState((prev) => ({ id, outcome: { ...(prev?.id === id ? prev.outcome : { accepted: false }), ...change } }));
    };
    tracked.accepted.then(
      () => update({ accepted: true }),
      (error: unknown) => {
        const refusal = refusalOf(error);
        if (refusal) update({ refusal });
      },
    );
    tracked.ack?.then(
      (ack) => update({ ack, ...(rejectingAck(ack) && { refusal: rejectingAck(ack) }) }),
      () => undefined, // a refusal already arrives through `accepted`
    );
    return () => {
      live = false;
    };
  }, [tracked]);
  if (!tracked) return undefined;
  return state?.id === tracked.envelope.id ? state.outcome : { accepted: false };
}

/** How long a toast offering Undo stays up: long enough to read it and reach the button. */
const UNDO_MS = 10_000;

export interface TrackOptions {
  /** Toasted when the gateway accepts it (my echo arrives). */
  success?: string;
  /**
   * Offered as Undo on that toast: an action that can be taken back at once (a revoke, granted back) acts without a
   * question, and its toast says how to take it back.
   */
  undo?: () => void;
}

/**
 * Runs an operator action (`participant.operate.…`) and toasts the outcome: a local failure at once, a gateway
 * refusal (or an ack that says `rejected`), or the success message when the gateway accepts it, whatever happens to
 * the component that sent it (a dialog closed meanwhile still gets its toast).
 *
 * @example
 * sendTracked(`Pause ${id}`, () => participant.operate.pause(id), { success: `Paused ${id}` });
 */
export function sendTracked(label: string, operate: () => TrackedSend, options: TrackOptions = {}): TrackedSend | undefined {
  let tracked: TrackedSend;
  try {
    tracked = operate();
  } catch (error) {
    toast.error(`${label}: not sent`, { description: (error as Error).message });
    return undefined;
  }
  const refused = (refusal: Refusal) => toast.error(`${label}: refused`, { id: refusal.id, description: describeRefusal(refusal) });
  const undo = options.undo && { action: { label: 'Undo', onClick: options.undo }, duration: UNDO_MS };
  tracked.accepted.then(() => options.success && toast.success(options.success, undo), toastRefusal(label));
  tracked.ack?.then(
    (ack) => {
      const refusal = rejectingAck(ack);
      if (refusal) refused(refusal);
    },
    () => undefined,
  );
  return tracked;
}
