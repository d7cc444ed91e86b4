'use client';

import { useId, useMemo, useState } from 'react';
import { useSpace, useSpaceSession } from '@/components/session/space-session';
import { useIsOperator } from '@/components/session/use-is-operator';
import { ConfirmDialog } from '@/components/ui/confirm-dialog';
import { Dialog, DialogFooter, DialogForm } from '@/components/ui/dialog';
import type { OutgoingEnvelope } from '@/lib/sdk/mew-client';
import type { ParticipantState } from '@/lib/store';
import { sendTracked, type TrackedSend } from './action-outcome';
import { BudgetDialog } from './budget-dialog';
import { MenuButton, type MenuItem } from '@/components/ui/menu-button';
import { NumberField, optionalCount } from './number-field';
import { BUTTON, INPUT } from './styles';

type ControlKey = 'pause' | 'resume' | 'status' | 'forget' | 'compact' | 'clear' | 'restart' | 'shutdown' | 'kick';

interface ControlSpec {
  label: string;
  /** The kind and a representative payload, to ask `canSend` before offering it. */
  kind: string;
  sample: Record<string, unknown>;
  /** Only useful while the target is connected (the gateway enforces pause and kick either way). */
  onlineOnly: boolean;
  /** Asks for confirmation first (DESIGN.md: forget, clear, restart, shutdown, kick). */
  destructive: boolean;
  /** Opens a form (timeout, target tokens…) rather than sending at once. */
  form: boolean;
}

const CONTROLS: Record<ControlKey, ControlSpec> = {
  pause: { label: 'Pause…', kind: 'participant/pause', sample: {}, onlineOnly: false, destructive: false, form: true },
  resume: { label: 'Resume', kind: 'participant/resume', sample: {}, onlineOnly: false, destructive: false, form: false },
  status: { label: 'Request status', kind: 'participant/request-status', sample: {}, onlineOnly: true, destructive: false, form: false },
  compact: { label: 'Compact…', kind: 'participant/compact', sample: {}, onlineOnly: true, destructive: false, form: true },
  forget: { label: 'Forget…', kind: 'participant/forget', sample: { direction: 'oldest' }, onlineOnly: true, destructive: true, form: true },
  clear: { label: 'Clear…', kind: 'participant/clear', sample: {}, onlineOnly: true, destructive: true, form: true },
  restart: { label: 'Restart…', kind: 'participant/restart', sample: {}, onlineOnly: true, destructive: true, form: true },
  shutdown: { label: 'Shut down…', kind: 'participant/shutdown', sample: {}, onlineOnly: true, destructive: true, form: true },
  kick: { label: 'Kick…', kind: 'space/kick', sample: { participant_id: 'x' }, onlineOnly: false, destructive: true, form: true },
};
const ORDER: readonly ControlKey[] = ['pause', 'resume', 'status', 'compact', 'forget', 'clear', 'restart', 'shutdown', 'kick'];

// The shared confirmation in the rail's looks: every action it guards is destructive.
const CONFIRM = { size: 'small', classNames: { cancel: BUTTON.secondary, confirm: BUTTON.danger } } as const;

/** What I may send, per the gateway's matcher on my capabilities; recomputed when a welcome changes them. */
function usePermitted(): Record<ControlKey, boolean> {
  const { participant } = useSpaceSession();
  const mine = useSpace((s) => s.connection.capabilities);
  return useMemo(() => {
    void mine; // the SDK compiled these before the store saw them; this dependency re-asks after each welcome
    const out = {} as Record<ControlKey, boolean>;
    for (const key of ORDER) out[key] = participant.canSend(CONTROLS[key].kind, CONTROLS[key].sample);
    return out;
  }, [participant, mine]);
}

/**
 * The controls menu of one participant's card and the dialogs behind it. Everything goes `to: [target]` from my
 * participant; `onSent` lets the card show the gateway's answer.
 */
export function ParticipantControls({ participant: p, onSent }: { participant: ParticipantState; onSent: (sent: TrackedSend, label: string) => void }) {
  const session = useSpaceSession();
  const permitted = usePermitted();
  const operator = useIsOperator();
  const [dialog, setDialog] = useState<ControlKey | 'budget'>();

  function send(key: ControlKey, envelope: OutgoingEnvelope, successToast?: string) {
    setDialog(undefined);
    const label = `${CONTROLS[key].label.replace('…', '')} ${p.id}`;
    const sent = sendTracked(session, label, envelope, { success: successToast });
    if (sent) onSent(sent, label);
  }
  const control = (key: ControlKey, payload: Record<string, unknown>, extra: Partial<OutgoingEnvelope> = {}) =>
    send(key, { kind: CONTROLS[key].kind, to: [p.id], payload, ...extra } as OutgoingEnvelope);

  function run(key: ControlKey) {
    if (CONTROLS[key].form) return setDialog(key);
    if (key === 'resume') return control('resume', {}, p.paused ? { correlation_id: [p.paused.controlId] } : {});
    if (key === 'status') {
      const label = `Request status ${p.id}`;
      const sent = sendTracked(session, label, { kind: 'participant/request-status', to: [p.id], payload: {} });
      if (sent) onSent(sent, label);
    }
  }

  const items: MenuItem[] = ORDER.filter((key) => permitted[key] && (p.online || !CONTROLS[key].onlineOnly)).map((key) => ({
    key,
    label: CONTROLS[key].label,
    danger: CONTROLS[key].destructive,
    onSelect: () => run(key),
  }));
  // Budgets are not a control envelope but the budgets API, which is for operators.
  if (operator) items.push({ key: 'budget', label: 'Set budget…', onSelect: () => setDialog('budget') });

  const close = () => setDialog(undefined);
  return (
    <>
      <MenuButton label={`Controls for ${p.id}`} buttonText="Controls" items={items} />
      {operator && <BudgetDialog participant={p.id} open={dialog === 'budget'} onClose={close} />}
      <PauseDialog id={p.id} open={dialog === 'pause'} onClose={close} onSubmit={(payload) => control('pause', payload)} />
      <CompactDialog id={p.id} open={dialog === 'compact'} onClose={close} onSubmit={(payload) => control('compact', payload)} />
      <ForgetDialog id={p.id} open={dialog === 'forget'} onClose={close} onSubmit={(payload) => control('forget', payload)} />
      <ConfirmDialog
        {...CONFIRM}
        open={dialog === 'clear'}
        onCancel={close}
        title={`Clear ${p.id}?`}
        description={<>Wipes all of <b>{p.id}</b>’s retained context, scratchpads and working memory. This cannot be undone.</>}
        confirmLabel="Clear"
        onConfirm={() => control('clear', {})}
      />
      <ConfirmDialog
        {...CONFIRM}
        open={dialog === 'restart'}
        onCancel={close}
        title={`Restart ${p.id}?`}
        description={<>Returns <b>{p.id}</b> to its baseline: its reasoning is cancelled and its streams close. Grants stay in effect.</>}
        confirmLabel="Restart"
        onConfirm={() => control('restart', {})}
      />
      <ConfirmDialog
        {...CONFIRM}
        open={dialog === 'shutdown'}
        onCancel={close}
        title={`Shut down ${p.id}?`}
        description={<><b>{p.id}</b> stops all activity and the gateway refuses its messages until it rejoins the space.</>}
        confirmLabel="Shut down"
        onConfirm={() => control('shutdown', {})}
      />
      <KickDialog
        id={p.id}
        open={dialog === 'kick'}
        onClose={close}
        onSubmit={(reason) => send('kick', { kind: 'space/kick', to: [p.id], payload: { participant_id: p.id, ...(reason && { reason }) } }, `Kicked ${p.id}`)}
      />
    </>
  );
}

function Actions({ onCancel, submit, danger = false, disabled = false }: { onCancel: () => void; submit: string; danger?: boolean; disabled?: boolean }) {
  return (
    <DialogFooter>
      <button type="button" onClick={onCancel} className={BUTTON.secondary}>
        Cancel
      </button>
      <button type="submit" disabled={disabled} className={danger ? BUTTON.danger : BUTTON.primary}>
        {submit}
      </button>
    </DialogFooter>
  );
}

function PauseDialog({ id, open, onClose, onSubmit }: { id: string; open: boolean; onClose: () => void; onSubmit: (payload: Record<string, unknown>) => void }) {
  return (
    <Dialog open={open} onClose={onClose} size="small" title={`Pause ${id}`} description="The gateway refuses its messages (except acknowledgements, status and responses) until you resume it.">
      <PauseForm onClose={onClose} onSubmit={onSubmit} />
    </Dialog>
  );
}

function PauseForm({ onClose, onSubmit }: { onClose: () => void; onSubmit: (payload: Record<string, unknown>) => void }) {
  const [timeout, setTimeoutText] = useState('');
  const [reason, setReason] = useState('');
  const seconds = optionalCount(timeout);
  const invalid = Number.isNaN(seconds);
  function submit() {
    if (invalid) return;
    onSubmit({ ...(seconds !== undefined && { timeout_seconds: seconds }), ...(reason.trim() && { reason: reason.trim() }) });
  }
  return (
    <DialogForm onSubmit={submit}>
      <NumberField first label="Timeout (seconds, optional)" value={timeout} onChange={setTimeoutText} invalid={invalid} hint="Empty: paused until resumed." />
      <label className="flex flex-col gap-1 text-sm">
        Reason (optional)
        <input value={reason} onChange={(e) => setReason(e.target.value)} className={INPUT} />
      </label>
      <Actions onCancel={onClose} submit="Pause" disabled={invalid} />
    </DialogForm>
  );
}

function CompactDialog({ id, open, onClose, onSubmit }: { id: string; open: boolean; onClose: () => void; onSubmit: (payload: Record<string, unknown>) => void }) {
  return (
    <Dialog open={open} onClose={onClose} size="small" title={`Compact ${id}`} description="Asks it to compact its working memory; it answers with compact-done.">
      <CompactForm onClose={onClose} onSubmit={onSubmit} />
    </Dialog>
  );
}

function CompactForm({ onClose, onSubmit }: { onClose: () => void; onSubmit: (payload: Record<string, unknown>) => void }) {
  const [target, setTarget] = useState('');
  const tokens = optionalCount(target);
  const invalid = Number.isNaN(tokens);
  return (
    <DialogForm
      onSubmit={() => {
        if (!invalid) onSubmit({ reason: 'operator_request', ...(tokens !== undefined && { target_tokens: tokens }) });
      }}
    >
      <NumberField first label="Target tokens (optional)" value={target} onChange={setTarget} invalid={invalid} hint="The context size to aim for after compaction." />
      <Actions onCancel={onClose} submit="Compact" disabled={invalid} />
    </DialogForm>
  );
}

function ForgetDialog({ id, open, onClose, onSubmit }: { id: string; open: boolean; onClose: () => void; onSubmit: (payload: Record<string, unknown>) => void }) {
  return (
    <Dialog open={open} onClose={onClose} size="small" title={`Forget part of ${id}’s context?`} description="Drops cached context from one end of its memory. This cannot be undone.">
      <ForgetForm onClose={onClose} onSubmit={onSubmit} />
    </Dialog>
  );
}

function ForgetForm({ onClose, onSubmit }: { onClose: () => void; onSubmit: (payload: Record<string, unknown>) => void }) {
  const name = useId();
  const [direction, setDirection] = useState<'oldest' | 'newest'>('oldest');
  const [entries, setEntries] = useState('');
  const count = optionalCount(entries);
  const invalid = Number.isNaN(count);
  return (
    <DialogForm
      onSubmit={() => {
        if (!invalid) onSubmit({ direction, ...(count !== undefined && { entries: count }) });
      }}
    >
      <fieldset className="flex gap-4 text-sm">
        <legend className="mb-1">From which end</legend>
        {(['oldest', 'newest'] as const).map((d) => (
          <label key={d} className="flex items-center gap-1.5">
            <input
              type="radio"
              name={name}
              checked={direction === d}
              onChange={() => setDirection(d)}
              data-autofocus={d === direction || undefined}
              className="accent-sky-500"
            />
            {d === 'oldest' ? 'Oldest' : 'Newest'}
          </label>
        ))}
      </fieldset>
      <NumberField label="Entries (optional)" value={entries} onChange={setEntries} invalid={invalid} hint="How many messages to drop; empty lets the agent decide." />
      <Actions onCancel={onClose} submit="Forget" danger disabled={invalid} />
    </DialogForm>
  );
}

function KickDialog({ id, open, onClose, onSubmit }: { id: string; open: boolean; onClose: () => void; onSubmit: (reason: string) => void }) {
  return (
    <Dialog
      open={open}
      onClose={onClose}
      size="small"
      title={`Kick ${id}?`}
      description="Disconnects it and revokes its tokens: it cannot rejoin unless invited again."
    >
      <KickForm onClose={onClose} onSubmit={onSubmit} />
    </Dialog>
  );
}

function KickForm({ onClose, onSubmit }: { onClose: () => void; onSubmit: (reason: string) => void }) {
  const [reason, setReason] = useState('');
  return (
    <DialogForm onSubmit={() => onSubmit(reason.trim())}>
      <label className="flex flex-col gap-1 text-sm">
        Reason (optional, kept in the audit log)
        <input value={reason} onChange={(e) => setReason(e.target.value)} data-autofocus className={INPUT} />
      </label>
      <Actions onCancel={onClose} submit="Kick" danger />
    </DialogForm>
  );
}
