'use client';

import { useCallback, useMemo, useState, useSyncExternalStore } from 'react';
import { toast } from 'sonner';
import { spaceApi } from '@/components/session/space-api';
import { useSpaceSession } from '@/components/session/space-session';
import { useIsOperator } from '@/components/session/use-is-operator';
import type { SecretRevealRecorded, SecretRevealRequest } from '@/lib/protocol';
import { maskValue } from '@/lib/secrets/secret-masking';
import type { SpaceStore } from '@/lib/store';

/**
 * The envelopes whose masked secrets this tab shows whole: revealed by an operator, each reveal recorded first in the
 * space's audit log (`SECRET_REVEALED`). Kept in memory only: a reload masks everything again.
 */
class RevealedEnvelopes {
  private readonly ids = new Set<string>();
  private readonly listeners = new Set<() => void>();

  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  has(id: string): boolean {
    return this.ids.has(id);
  }

  set(id: string, revealed: boolean): void {
    if (revealed === this.ids.has(id)) return;
    if (revealed) this.ids.add(id);
    else this.ids.delete(id);
    for (const listener of this.listeners) listener();
  }
}

/** One per signed-in space (its store): the envelope log and the chat reveal the same envelope together. */
const revealedBySpace = new WeakMap<SpaceStore, RevealedEnvelopes>();

function useRevealedEnvelopes(): RevealedEnvelopes {
  const { store } = useSpaceSession();
  let revealed = revealedBySpace.get(store);
  if (!revealed) {
    revealed = new RevealedEnvelopes();
    revealedBySpace.set(store, revealed);
  }
  return revealed;
}

/** Whether the envelope's secrets are shown whole in this tab. */
export function useRevealed(envelopeId: string): boolean {
  const revealed = useRevealedEnvelopes();
  const isRevealed = useCallback(() => revealed.has(envelopeId), [revealed, envelopeId]);
  return useSyncExternalStore(revealed.subscribe, isRevealed, () => false);
}

/** A value as this tab shows it (see `useMaskedValue`). */
export interface Masked<T> {
  /** What to render: masked, or whole once revealed. */
  shown: T;
  /** It holds a secret (masked or revealed): put a `SecretMask` beside it. */
  secret: boolean;
  revealed: boolean;
}

/**
 * Text or a JSON value of envelope `envelopeId` as every view of the control room shows it: its secrets masked
 * (lib/secrets `maskValue`: `ghp_…abcd`, secret-named fields) until an operator reveals that envelope in this tab,
 * then whole, in every view at once. Masked once per value.
 */
export function useMaskedValue<T>(envelopeId: string, value: T): Masked<T> {
  const masked = useMemo(() => maskValue(value), [value]);
  const revealed = useRevealed(envelopeId);
  const secret = masked !== value;
  return { shown: secret && revealed ? value : masked, secret, revealed: secret && revealed };
}

/**
 * Free text of an envelope (a thought, a question, a result) as the control room shows it: masked, followed, when it
 * held a secret, by "secret masked" and the operator's audited Reveal (`SecretMask`). Render it inside the text's
 * own element.
 */
export function MaskedText({ envelopeId, text, what }: { envelopeId: string; text: string; what: string }) {
  const { shown, secret } = useMaskedValue(envelopeId, text);
  return (
    <>
      {shown}
      {secret && (
        <>
          {' '}
          <SecretMask envelopeId={envelopeId} what={what} />
        </>
      )}
    </>
  );
}

const CONTROL =
  'rounded border border-slate-700 px-1.5 py-px text-[11px] text-sky-300 hover:bg-slate-800 focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-sky-400 disabled:opacity-60';

/**
 * Beside a value shown masked (`ghp_…abcd`): says so, and for an operator offers **Reveal**, which first records the
 * reveal in the audit log (`POST /api/spaces/{space}/audit/reveal`) and only then shows the envelope whole, here and
 * wherever else this page shows it; **Mask again** hides it (nothing to record). Others see only that it is masked.
 */
export function SecretMask({ envelopeId, what }: { envelopeId: string; what: string }) {
  const { space, token } = useSpaceSession();
  const operator = useIsOperator();
  const revealed = useRevealedEnvelopes();
  const isRevealed = useRevealed(envelopeId);
  const [asking, setAsking] = useState(false);

  const reveal = () => {
    setAsking(true);
    spaceApi<SecretRevealRecorded>(space, token, '/audit/reveal', { method: 'POST', body: { envelope_id: envelopeId } satisfies SecretRevealRequest })
      .then(
        () => {
          revealed.set(envelopeId, true);
          toast(`Secret revealed in this ${what}`, { description: 'The audit log records that you revealed it (SECRET_REVEALED).' });
        },
        (e: Error) => toast.error('The secret was not revealed', { description: e.message }),
      )
      .finally(() => setAsking(false));
  };

  return (
    <span className="inline-flex items-center gap-1.5 text-[11px]">
      {isRevealed ? (
        <>
          <span className="text-amber-300">secret shown whole (revealed by you, audited)</span>
          <button type="button" className={CONTROL} onClick={() => revealed.set(envelopeId, false)} aria-label={`Mask the secret in this ${what} again`}>
            Mask again
          </button>
        </>
      ) : (
        <>
          <span className="text-slate-400" title="Secrets are masked in the control room (lib/secrets): a known prefix and the last four characters.">
            secret masked
          </span>
          {operator && (
            <button
              type="button"
              className={CONTROL}
              disabled={asking}
              onClick={reveal}
              aria-label={`Reveal the secret in this ${what} (audited)`}
              title="Shows it whole in this tab; the audit log records who revealed which envelope"
            >
              {asking ? 'Revealing…' : 'Reveal'}
            </button>
          )}
        </>
      )}
    </span>
  );
}
