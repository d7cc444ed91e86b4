'use client';

import { useEffect, useId, useMemo, useRef, useState, type FormEvent } from 'react';
import { useSpace, useSpaceSession } from '@/components/session/space-session';
import { Dialog, DialogFooter } from '@/components/ui/dialog';
import { participantById } from '@/lib/store';
import { describeRefusal, sendTracked, useOutcome, type TrackedSend } from './action-outcome';
import { CapabilityPicker, initialPicker, parsePicker, type PickerValue } from './capability-picker';
import { CopyField } from './copy-field';
import { participantIdProblem } from './participant-id';
import { BUTTON, INPUT } from './styles';

/**
 * Invites a participant (`space/invite`). The gateway answers me alone with `space/invite-ack` carrying a freshly
 * minted token, which is shown once: it lives only in this dialog's state and is gone when the dialog closes.
 */
export function InviteDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  return (
    <Dialog open={open} onClose={onClose} size="large" title="Invite a participant">
      <InviteForm onClose={onClose} />
    </Dialog>
  );
}

function InviteForm({ onClose }: { onClose: () => void }) {
  const { participant } = useSpaceSession();
  const hintId = useId();
  const myCapabilities = useSpace((s) => s.connection.capabilities);
  const [id, setId] = useState('');
  const [touched, setTouched] = useState(false);
  const [picker, setPicker] = useState<PickerValue>(() => initialPicker('proposal-only'));
  const [reason, setReason] = useState('');
  const [sent, setSent] = useState<TrackedSend>();
  const outcome = useOutcome(sent);
  const parsed = useMemo(() => parsePicker(picker), [picker]);

  const trimmed = id.trim();
  // The gateway refuses an id that exists, unless it was kicked (re-inviting is how a kicked participant returns).
  const taken = useSpace((s) => {
    const existing = participantById(s, trimmed);
    return existing !== undefined && !existing.kicked;
  });
  const idProblem = participantIdProblem(trimmed) ?? (taken ? `“${trimmed}” is already a participant.` : undefined);
  const payload = parsed.ok
    ? { participant_id: trimmed, initial_capabilities: parsed.capabilities, ...(reason.trim() && { reason: reason.trim() }) }
    : undefined;
  const allowed = useMemo(
    () => participant.operate.allows('invite', payload ?? { participant_id: 'x' }),
    // Re-asked when a welcome changes my capabilities; the payload is compared by value.
    [participant, myCapabilities, JSON.stringify(payload)],
  );

  const ack = outcome?.ack?.kind === 'space/invite-ack' ? outcome.ack.payload : undefined;
  if (ack?.status === 'created' && ack.token) {
    return <MintedToken participant={ack.participant_id ?? trimmed} token={ack.token} url={ack.connection_url} onDone={onClose} />;
  }

  function submit(event: FormEvent) {
    event.preventDefault();
    setTouched(true);
    if (idProblem || !payload || !allowed) return;
    setSent(sendTracked(`Invite ${trimmed}`, () => participant.operate.invite(payload)));
  }

  const waiting = !!sent && !outcome?.refusal;
  const showIdProblem = (touched || id !== '') && idProblem;
  return (
    <form onSubmit={submit} className="flex flex-col gap-3">
      <label className="flex flex-col gap-1 text-sm">
        Participant id
        <input
          value={id}
          onChange={(e) => setId(e.target.value)}
          onBlur={() => setTouched(true)}
          autoComplete="off"
          spellCheck={false}
          placeholder="e.g. research-agent"
          aria-invalid={!!showIdProblem}
          aria-describedby={hintId}
          data-autofocus
          className={`${INPUT} font-mono`}
        />
        <span id={hintId} className={`text-xs ${showIdProblem ? 'text-red-300' : 'text-slate-500'}`}>
          {showIdProblem || '1–64 letters, digits and . _ : @ - (not “.” or “..”).'}
        </span>
      </label>
      <CapabilityPicker legend="Initial capabilities" value={picker} parsed={parsed} onChange={setPicker} />
      <label className="flex flex-col gap-1 text-sm">
        Reason (optional, kept in the audit log)
        <input value={reason} onChange={(e) => setReason(e.target.value)} className={INPUT} />
      </label>
      <DialogFooter>
        {!allowed && <span className="mr-auto text-xs text-slate-400">Your capabilities do not allow space/invite.</span>}
        <button type="button" onClick={onClose} className={BUTTON.secondary}>
          Cancel
        </button>
        <button type="submit" disabled={!!idProblem || !payload || !allowed || waiting} className={BUTTON.primary}>
          {waiting ? 'Inviting…' : 'Invite'}
        </button>
      </DialogFooter>
      {outcome?.refusal && (
        <p role="alert" className="rounded border border-red-800 bg-red-950/40 px-2 py-1 text-sm text-red-200">
          Refused by the gateway — {describeRefusal(outcome.refusal)}
        </p>
      )}
      {waiting && (
        <p role="status" className="text-xs text-slate-400">
          Waiting for the gateway’s token… keep this dialog open: the token is shown only here.
        </p>
      )}
    </form>
  );
}

function MintedToken({ participant, token, url, onDone }: { participant: string; token: string; url?: string; onDone: () => void }) {
  const section = useRef<HTMLElement>(null);
  // The form (and the focused Invite button) just went away: start on the token's copy button.
  useEffect(() => section.current?.querySelector<HTMLElement>('button')?.focus(), []);
  return (
    <section ref={section} aria-label="Minted invitation" className="flex flex-col gap-3">
      <p role="alert" className="rounded border border-amber-700 bg-amber-950/40 px-2 py-1.5 text-sm text-amber-100">
        <b className="font-mono">{participant}</b> is invited. Copy its token now: it will not be shown again.
      </p>
      <CopyField label="Token" value={token} copy="Copy token" secret />
      {url && <CopyField label="Connection URL" value={url} copy="Copy connection URL" />}
      <p className="text-xs text-slate-400">
        The participant connects to the connection URL with <code className="font-mono">Authorization: Bearer &lt;token&gt;</code> (or the
        <code className="font-mono"> mew.bearer.&lt;token&gt;</code> subprotocol from a browser).
      </p>
      <DialogFooter>
        <button type="button" onClick={onDone} className={BUTTON.primary}>
          Done
        </button>
      </DialogFooter>
    </section>
  );
}
