'use client';

import { useId, useMemo, useState, type FormEvent } from 'react';
import { useSpace, useSpaceSession } from '@/components/session/space-session';
import { Dialog } from '@/components/ui/dialog';
import { covers, coversAll, type CapabilityInput } from '@/lib/capabilities';
import { describeRefusal, sendTracked, useOutcome, type TrackedSend } from './action-outcome';
import { CapabilityLine } from './capability-line';
import type { WireCapability } from '@/lib/protocol';
import { CapabilityPicker, initialPicker, parsePicker, type PickerValue } from './capability-picker';
import { CapabilityPreview } from './capability-preview';
import type { CapabilitySummary } from './effective-capabilities';
import { RelativeTime } from './relative-time';
import { BUTTON, INPUT } from './styles';

/** The `participant.operate` action the form sends. */
type Mode = 'grant' | 'revoke';

function safeCovers(patterns: readonly WireCapability[], capability: WireCapability): boolean {
  try {
    return covers(patterns as CapabilityInput[], capability as CapabilityInput);
  } catch {
    return false;
  }
}

/**
 * Grant capabilities to a participant (template or JSON, validated live, previewed against recent envelopes) and
 * revoke them, by grant or by pattern. The gateway decides; its refusals are shown here and toasted.
 */
export function CapabilityEditor({ recipient, summary, open, onClose }: { recipient: string; summary: CapabilitySummary; open: boolean; onClose: () => void }) {
  return (
    <Dialog
      open={open}
      onClose={onClose}
      size="large"
      title={
        <>
          Capabilities of <span className="font-mono">{recipient}</span>
        </>
      }
    >
      <InForce recipient={recipient} summary={summary} />
      <ChangeForm recipient={recipient} summary={summary} />
    </Dialog>
  );
}

function InForce({ recipient, summary }: { recipient: string; summary: CapabilitySummary }) {
  const { participant } = useSpaceSession();
  // The last grant revoked here, offered back in place: this modal dialog keeps the page's toasts out of reach.
  const [taken, setTaken] = useState<readonly WireCapability[]>();
  return (
    <section aria-label="In force" className="flex flex-col gap-2 rounded border border-slate-800 p-2">
      <h3 className="text-sm font-medium text-slate-200">In force</h3>
      <div>
        <h4 className="text-xs text-slate-400">Base (configuration or invite)</h4>
        <ul className="mt-1 flex flex-col gap-1">
          {summary.base.filter((b) => !b.revokedBy).length === 0 && <li className="text-xs text-slate-500">none</li>}
          {summary.base
            .filter((b) => !b.revokedBy)
            .map((b, i) => (
              <li key={i}>
                <CapabilityLine capability={b.capability} />
              </li>
            ))}
        </ul>
      </div>
      <div>
        <h4 className="text-xs text-slate-400">Grants</h4>
        {taken && (
          <p role="status" className="mt-1 flex flex-wrap items-center gap-2 text-xs text-slate-300">
            Revoked a grant of {recipient}.
            <button
              type="button"
              className={BUTTON.small}
              onClick={() => {
                grantBack(participant, recipient, taken);
                setTaken(undefined);
              }}
            >
              Undo
            </button>
          </p>
        )}
        <ul aria-label="Grants in force" className="mt-1 flex flex-col gap-1.5">
          {summary.granted.length === 0 && <li className="text-xs text-slate-500">none</li>}
          {summary.granted.map(({ grant, capabilities }) => (
            <GrantRow
              key={grant.id}
              recipient={recipient}
              grantId={grant.id}
              granter={grant.granter}
              at={grant.at}
              reason={grant.reason}
              capabilities={capabilities}
              onRevoked={setTaken}
            />
          ))}
        </ul>
      </div>
    </section>
  );
}

function GrantRow({
  recipient,
  grantId,
  granter,
  at,
  reason,
  capabilities,
  onRevoked,
}: {
  recipient: string;
  grantId: string;
  granter: string;
  at: number;
  reason?: string;
  capabilities: readonly WireCapability[];
  /** Once the gateway took the revoke: what it took, for Undo. */
  onRevoked: (capabilities: readonly WireCapability[]) => void;
}) {
  const { participant } = useSpaceSession();
  const [sent, setSent] = useState<TrackedSend>();
  const outcome = useOutcome(sent);
  const payload = { recipient, grant_id: grantId };
  const allowed = participant.operate.allows('revoke', payload);

  // At once, with Undo: granting the same capabilities back restores what the revoke took.
  function revoke() {
    const tracked = sendTracked(`Revoke grant of ${recipient}`, () => participant.operate.revoke(payload), {
      success: `Revoked a grant of ${recipient}`,
      undo: () => grantBack(participant, recipient, capabilities),
    });
    tracked?.accepted.then(
      () => onRevoked(capabilities),
      () => undefined, // refused: shown on the row and toasted
    );
    setSent(tracked);
  }

  return (
    <li className="flex flex-wrap items-start justify-between gap-2 rounded bg-slate-950/60 px-2 py-1.5">
      <div className="flex min-w-0 flex-1 flex-col gap-0.5">
        {capabilities.map((c, i) => (
          <CapabilityLine key={i} capability={c} />
        ))}
        <span className="text-xs text-slate-500">
          by {granter} <RelativeTime at={at} />
          {reason && <> · “{reason}”</>} · <span className="font-mono">{grantId.slice(0, 8)}</span>
        </span>
        {outcome?.refusal && (
          <span role="alert" className="text-xs text-red-300">
            Revoke refused — {describeRefusal(outcome.refusal)}
          </span>
        )}
      </div>
      {allowed && (
        <button type="button" onClick={revoke} disabled={!!sent && !outcome?.refusal} className={BUTTON.small}>
          {sent && !outcome?.refusal ? 'Revoking…' : 'Revoke'}
        </button>
      )}
    </li>
  );
}

function ChangeForm({ recipient, summary }: { recipient: string; summary: CapabilitySummary }) {
  const { participant } = useSpaceSession();
  const formId = useId();
  const myCapabilities = useSpace((s) => s.connection.capabilities);
  const [mode, setMode] = useState<Mode>('grant');
  const [picker, setPicker] = useState<PickerValue>(() => initialPicker('read-only-tools'));
  const [reason, setReason] = useState('');
  const [sent, setSent] = useState<{ tracked: TrackedSend; mode: Mode; takenBack: readonly WireCapability[]; undone?: boolean }>();
  const outcome = useOutcome(sent?.tracked);
  const parsed = useMemo(() => parsePicker(picker), [picker]);

  const capabilities = parsed.ok ? parsed.capabilities : undefined;
  const payload = capabilities && { recipient, capabilities, ...(reason.trim() && { reason: reason.trim() }) };
  // Re-evaluated when my capabilities change (a welcome), like the gateway would.
  const allowed = useMemo(
    () => participant.operate.allows(mode, payload ?? { recipient, capabilities: [{ kind: 'chat' }] }),
    [participant, myCapabilities, mode, JSON.stringify(payload)],
  );
  const exceeds = mode === 'grant' && capabilities !== undefined && !safeCoversAll(myCapabilities, capabilities);
  const removed = useMemo(() => {
    if (mode !== 'revoke' || !capabilities) return [];
    const granted = summary.granted.flatMap((g) => g.capabilities);
    const base = summary.base.filter((b) => !b.revokedBy).map((b) => b.capability);
    return [...granted, ...base].filter((c) => safeCovers(capabilities, c));
  }, [mode, capabilities, summary]);

  function submit(event: FormEvent) {
    event.preventDefault();
    if (!payload || !allowed) return;
    const label = mode === 'grant' ? `Grant to ${recipient}` : `Revoke from ${recipient}`;
    const takenBack = removed;
    const tracked = sendTracked(label, () => (mode === 'grant' ? participant.operate.grant(payload) : participant.operate.revoke(payload)), {
      success:
        mode === 'grant'
          ? `Granted ${capabilities!.length} capabilit${capabilities!.length === 1 ? 'y' : 'ies'} to ${recipient}`
          : `Revoked ${takenBack.length} capabilit${takenBack.length === 1 ? 'y' : 'ies'} from ${recipient}`,
      ...(mode === 'revoke' && takenBack.length > 0 && { undo: () => grantBack(participant, recipient, takenBack) }),
    });
    setSent(tracked && { tracked, mode, takenBack });
  }

  const waiting = !!sent && !outcome?.accepted && !outcome?.refusal;
  return (
    <form onSubmit={submit} className="flex flex-col gap-3" aria-label={mode === 'grant' ? 'Grant capabilities' : 'Revoke capabilities by pattern'}>
      <fieldset className="flex gap-1 self-start rounded border border-slate-700 p-0.5 text-sm">
        <legend className="sr-only">Change</legend>
        {(['grant', 'revoke'] as const).map((m) => (
          <label
            key={m}
            className="cursor-pointer rounded px-3 py-1 text-slate-300 has-[:checked]:bg-slate-700 has-[:checked]:text-white has-[:focus-visible]:ring-2 has-[:focus-visible]:ring-sky-400"
          >
            <input type="radio" name={`${formId}-mode`} value={m} checked={mode === m} onChange={() => setMode(m)} className="sr-only" />
            {m === 'grant' ? 'Grant' : 'Revoke by pattern'}
          </label>
        ))}
      </fieldset>

      <CapabilityPicker legend={mode === 'grant' ? 'Capabilities to grant' : 'Patterns to revoke'} value={picker} parsed={parsed} onChange={setPicker} />

      {exceeds && (
        <p className="rounded border border-amber-700 bg-amber-950/40 px-2 py-1 text-xs text-amber-200">
          You do not hold all of these yourself; the gateway will refuse the grant (grant_exceeds_own_capabilities).
        </p>
      )}
      {capabilities && mode === 'grant' && <CapabilityPreview capabilities={capabilities} recipient={recipient} />}
      {capabilities && mode === 'revoke' && (
        <section aria-label="What this revoke takes back" className="rounded border border-slate-800 bg-slate-950/60 p-2 text-xs text-slate-300">
          {removed.length === 0 ? (
            <p>Covers none of {recipient}’s capabilities in force.</p>
          ) : (
            <>
              <p>Takes back {removed.length}:</p>
              <ul className="mt-1 flex flex-col gap-0.5">
                {removed.map((c, i) => (
                  <li key={i}>
                    <CapabilityLine capability={c} />
                  </li>
                ))}
              </ul>
            </>
          )}
        </section>
      )}

      <label className="flex flex-col gap-1 text-sm">
        Reason (optional, kept in the audit log)
        <input value={reason} onChange={(e) => setReason(e.target.value)} className={INPUT} />
      </label>

      <div className="flex flex-wrap items-center gap-3">
        <button type="submit" disabled={!payload || !allowed || waiting} className={mode === 'grant' ? BUTTON.primary : BUTTON.danger}>
          {mode === 'grant' ? 'Grant' : 'Revoke matching'}
        </button>
        {!allowed && payload && (
          <span className="text-xs text-slate-400">Your capabilities do not allow {mode === 'grant' ? 'capability/grant' : 'capability/revoke'}.</span>
        )}
      </div>
      {sent && (
        <OutcomeLine
          mode={sent.mode}
          recipient={recipient}
          outcome={outcome}
          onUndo={
            sent.mode === 'revoke' && sent.takenBack.length > 0 && !sent.undone
              ? () => {
                  grantBack(participant, recipient, sent.takenBack);
                  setSent({ ...sent, undone: true });
                }
              : undefined
          }
        />
      )}
    </form>
  );
}

function OutcomeLine({
  mode,
  recipient,
  outcome,
  onUndo,
}: {
  mode: Mode;
  recipient: string;
  outcome: ReturnType<typeof useOutcome>;
  /** A revoke taken: grant back what it took (in place; the page's toasts are out of reach behind this dialog). */
  onUndo?: () => void;
}) {
  if (outcome?.refusal) {
    return (
      <p role="alert" className="rounded border border-red-800 bg-red-950/40 px-2 py-1 text-sm text-red-200">
        Refused by the gateway — {describeRefusal(outcome.refusal)}
      </p>
    );
  }
  const text = !outcome?.accepted
    ? 'Sent; waiting for the gateway…'
    : mode === 'grant'
      ? `Granted to ${recipient}.${outcome.ack ? ` ${recipient} acknowledged it.` : ''}`
      : `Revoked from ${recipient}.`;
  return (
    <p role="status" className={`flex flex-wrap items-center gap-2 text-sm ${outcome?.accepted ? 'text-emerald-300' : 'text-slate-400'}`}>
      {text}
      {outcome?.accepted && onUndo && (
        <button type="button" className={BUTTON.small} onClick={onUndo}>
          Undo
        </button>
      )}
    </p>
  );
}

/** The Undo of a revoke: the capabilities it took, granted back (recorded in the audit log as such). */
function grantBack(participant: ReturnType<typeof useSpaceSession>['participant'], recipient: string, capabilities: readonly WireCapability[]) {
  sendTracked(
    `Undo of the revoke from ${recipient}`,
    () => participant.operate.grant({ recipient, capabilities: [...capabilities], reason: 'undo of a revoke' }),
    {
      success: `Granted back to ${recipient}`,
    },
  );
}

function safeCoversAll(held: readonly WireCapability[], wanted: readonly WireCapability[]): boolean {
  try {
    return coversAll(held as CapabilityInput[], wanted as CapabilityInput[]);
  } catch {
    return false;
  }
}
