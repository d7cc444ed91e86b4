'use client';

import { type ReactNode, useId, useMemo, useState } from 'react';
import { useSpace, useSpaceSession } from '@/components/session/space-session';
import { useIsOperator } from '@/components/session/use-is-operator';
import { ConfirmDialog } from '@/components/ui/confirm-dialog';
import { Dialog, DialogFooter, DialogForm } from '@/components/ui/dialog';
import type { ParticipantCompactPayload, ParticipantForgetPayload, ParticipantPausePayload } from '@/lib/protocol';
import type { ParticipantOperate } from '@/lib/sdk/participant-namespaces';
import type { ParticipantState } from '@/lib/store';
import { sendTracked, type TrackedSend } from './action-outcome';
import { BudgetDialog } from './budget-dialog';
import { MenuButton, type MenuItem } from '@/components/ui/menu-button';
import { NumberField, optionalCount } from './number-field';
import { BUTTON, INPUT } from './styles';
import { MemoryLoss } from './working-memory';

/** The `participant.operate` actions of the menu. */
type ControlKey = 'pause' | 'resume' | 'requestStatus' | 'forget' | 'compact' | 'clear' | 'restart' | 'shutdown' | 'kick';

interface ControlSpec {
  label: string;
  /** Only useful while the target is connected (the gateway enforces pause and kick either way). */
  onlineOnly: boolean;
  /** Asks for confirmation first (DESIGN.md: forget, clear, restart, shutdown, kick). */
  destructive: boolean;
  /** Opens a form (timeout, target tokens…) rather than sending at once. */
  form: boolean;
}

const CONTROLS: Record<ControlKey, ControlSpec> = {
  pause: { label: 'Pause…', onlineOnly: false, destructive: false, form: true },
  resume: { label: 'Resume', onlineOnly: false, destructive: false, form: false },
  requestStatus: { label: 'Request status', onlineOnly: true, destructive: false, form: false },
  compact: { label: 'Compact…', onlineOnly: true, destructive: false, form: true },
  forget: { label: 'Forget…', onlineOnly: true, destructive: true, form: true },
  clear: { label: 'Clear…', onlineOnly: true, destructive: true, form: true },
  restart: { label: 'Restart…', onlineOnly: true, destructive: true, form: true },
  shutdown: { label: 'Shut down…', onlineOnly: true, destructive: true, form: true },
  kick: { label: 'Kick…', onlineOnly: false, destructive: true, form: true },
};
const ORDER: readonly ControlKey[] = ['pause', 'resume', 'requestStatus', 'compact', 'forget', 'clear', 'restart', 'shutdown', 'kick'];

/**
 * Whether `key` means anything for `p` as it is now: the menu offers only those (no Resume for an agent that is not
 * paused, no Shut down twice, no Kick for one already kicked and gone).
 */
function applies(key: ControlKey, p: ParticipantState): boolean {
  if (CONTROLS[key].onlineOnly && !p.online) return false;
  if (key === 'pause') return !p.paused;
  if (key === 'resume') return !!p.paused;
  if (key === 'shutdown') return !p.shutdown;
  if (key === 'kick') return p.online || !p.kicked;
  return true;
}

/** Whether `operate` may do `key` to `target`, asked with a representative call (the forms fill in the rest). */
function allows(operate: ParticipantOperate, key: ControlKey, target: string): boolean {
  if (key === 'kick') return operate.allows('kick', { participant_id: target });
  if (key === 'forget') return operate.allows('forget', target, { direction: 'oldest' });
  return operate.allows(key, target);
}

// The shared confirmation in the rail's looks: every action it guards is destructive.
const CONFIRM = { size: 'small', classNames: { cancel: BUTTON.secondary, confirm: BUTTON.danger } } as const;

/** The controls that open a dialog, and what it says: for the destructive ones, what is lost. */
type DialogKey = Exclude<ControlKey, 'resume' | 'requestStatus'>;
const DIALOGS: Record<DialogKey, { title: (id: string) => string; description: (id: string) => ReactNode }> = {
  pause: {
    title: (id) => `Pause ${id}`,
    description: () => 'The gateway refuses its messages (except acknowledgements, status and responses) until you resume it.',
  },
  compact: { title: (id) => `Compact ${id}`, description: () => 'Asks it to compact its working memory; it answers with compact-done.' },
  forget: { title: (id) => `Forget part of ${id}’s context?`, description: () => 'Drops cached context from one end of its memory. This cannot be undone.' },
  clear: {
    title: (id) => `Clear ${id}?`,
    description: (id) => (
      <>
        Wipes all of <b>{id}</b>’s retained context, scratchpads and working memory. <MemoryLoss participant={id} /> This cannot be undone.
      </>
    ),
  },
  restart: {
    title: (id) => `Restart ${id}?`,
    description: (id) => (
      <>
        Returns <b>{id}</b> to its baseline: its reasoning is cancelled and its streams close. <MemoryLoss participant={id} /> Grants stay in effect.
      </>
    ),
  },
  shutdown: {
    title: (id) => `Shut down ${id}?`,
    description: (id) => (
      <>
        <b>{id}</b> stops all activity, abandoning what it was doing, and the gateway refuses its messages until it rejoins the space.
      </>
    ),
  },
  kick: { title: (id) => `Kick ${id}?`, description: () => 'Disconnects it and revokes its tokens: it cannot rejoin unless invited again.' },
};
/** The destructive controls without a form: a confirmation, then the bare control. */
const CONFIRMED = ['clear', 'restart', 'shutdown'] as const;

/** A control's form in the rail's small dialog; the form mounts only while open, so each opening starts fresh. */
function ControlDialog({ control, id, open, onClose, children }: { control: DialogKey; id: string; open: boolean; onClose: () => void; children: ReactNode }) {
  return (
    <Dialog open={open} onClose={onClose} size="small" title={DIALOGS[control].title(id)} description={DIALOGS[control].description(id)}>
      {children}
    </Dialog>
  );
}

/** The confirmation of a control without a form; its button is the control's label ("Shut down"). */
function ConfirmControl({
  control,
  id,
  open,
  onCancel,
  onConfirm,
}: {
  control: (typeof CONFIRMED)[number];
  id: string;
  open: boolean;
  onCancel: () => void;
  onConfirm: () => void;
}) {
  return (
    <ConfirmDialog
      {...CONFIRM}
      open={open}
      onCancel={onCancel}
      title={DIALOGS[control].title(id)}
      description={DIALOGS[control].description(id)}
      confirmLabel={CONTROLS[control].label.replace('…', '')}
      onConfirm={onConfirm}
    />
  );
}

/** What I may do to `target`, per the gateway's matcher on my capabilities; recomputed when a welcome changes them. */
function usePermitted(target: string): Record<ControlKey, boolean> {
  const { participant } = useSpaceSession();
  const mine = useSpace((s) => s.connection.capabilities);
  return useMemo(() => {
    void mine; // the SDK compiled these before the store saw them; this dependency re-asks after each welcome
    const out = {} as Record<ControlKey, boolean>;
    for (const key of ORDER) out[key] = allows(participant.operate, key, target);
    return out;
  }, [participant, mine, target]);
}

/**
 * The controls menu of one participant's card and the dialogs behind it. Everything goes through my participant's
 * `operate`, to the target; `onSent` lets the card show the gateway's answer.
 */
export function ParticipantControls({ participant: p, onSent }: { participant: ParticipantState; onSent: (sent: TrackedSend, label: string) => void }) {
  const { participant } = useSpaceSession();
  const permitted = usePermitted(p.id);
  const operator = useIsOperator();
  const [dialog, setDialog] = useState<ControlKey | 'budget'>();

  function control(key: ControlKey, operate: (o: ParticipantOperate) => TrackedSend, successToast?: string) {
    setDialog(undefined);
    const label = `${CONTROLS[key].label.replace('…', '')} ${p.id}`;
    const sent = sendTracked(label, () => operate(participant.operate), { success: successToast });
    if (sent) onSent(sent, label);
  }

  function run(key: ControlKey) {
    if (CONTROLS[key].form) return setDialog(key);
    if (key === 'resume') return control('resume', (o) => o.resume(p.id, { pauseId: p.paused?.controlId }));
    if (key === 'requestStatus') return control('requestStatus', (o) => o.requestStatus(p.id));
  }

  const items: MenuItem[] = ORDER.filter((key) => permitted[key] && applies(key, p)).map((key) => ({
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
      <ControlDialog control="pause" id={p.id} open={dialog === 'pause'} onClose={close}>
        <PauseForm onClose={close} onSubmit={(payload) => control('pause', (o) => o.pause(p.id, payload))} />
      </ControlDialog>
      <ControlDialog control="compact" id={p.id} open={dialog === 'compact'} onClose={close}>
        <CompactForm onClose={close} onSubmit={(payload) => control('compact', (o) => o.compact(p.id, payload))} />
      </ControlDialog>
      <ControlDialog control="forget" id={p.id} open={dialog === 'forget'} onClose={close}>
        <ForgetForm onClose={close} onSubmit={(payload) => control('forget', (o) => o.forget(p.id, payload))} />
      </ControlDialog>
      {CONFIRMED.map((key) => (
        <ConfirmControl key={key} control={key} id={p.id} open={dialog === key} onCancel={close} onConfirm={() => control(key, (o) => o[key](p.id))} />
      ))}
      <ControlDialog control="kick" id={p.id} open={dialog === 'kick'} onClose={close}>
        <KickForm
          onClose={close}
          onSubmit={(reason) => control('kick', (o) => o.kick({ participant_id: p.id, ...(reason && { reason }) }), `Kicked ${p.id}`)}
        />
      </ControlDialog>
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

function PauseForm({ onClose, onSubmit }: { onClose: () => void; onSubmit: (payload: ParticipantPausePayload) => void }) {
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

function CompactForm({ onClose, onSubmit }: { onClose: () => void; onSubmit: (payload: ParticipantCompactPayload) => void }) {
  const [target, setTarget] = useState('');
  const tokens = optionalCount(target);
  const invalid = Number.isNaN(tokens);
  return (
    <DialogForm
      onSubmit={() => {
        if (!invalid) onSubmit({ reason: 'operator_request', ...(tokens !== undefined && { target_tokens: tokens }) });
      }}
    >
      <NumberField
        first
        label="Target tokens (optional)"
        value={target}
        onChange={setTarget}
        invalid={invalid}
        hint="The context size to aim for after compaction."
      />
      <Actions onCancel={onClose} submit="Compact" disabled={invalid} />
    </DialogForm>
  );
}

function ForgetForm({ onClose, onSubmit }: { onClose: () => void; onSubmit: (payload: ParticipantForgetPayload) => void }) {
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
      <NumberField
        label="Entries (optional)"
        value={entries}
        onChange={setEntries}
        invalid={invalid}
        hint="How many messages to drop; empty lets the agent decide."
      />
      <Actions onCancel={onClose} submit="Forget" danger disabled={invalid} />
    </DialogForm>
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
