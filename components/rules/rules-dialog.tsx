'use client';

import { useState } from 'react';
import { toast } from 'sonner';
import { RelativeTime } from '@/components/participants/relative-time';
import { BUTTON } from '@/components/participants/styles';
import { ConfirmDialog } from '@/components/ui/confirm-dialog';
import { Dialog } from '@/components/ui/dialog';
import { SecretMask, useMaskedValue, useRevealed } from '@/components/watch/revealed-secrets';
import { RULE_MODES, ruleInputOf, type ApprovalRuleInput, type RuleMode } from '@/lib/rules/approval-rule';
import { describeMatch } from '@/lib/rules/rule-shape';
import { maskText } from '@/lib/secrets/secret-masking';
import { maskedRuleName, ruleRevealId } from './masked-rule-name';
import { Options, RuleEditor } from './rule-editor';
import { EMPTY_FORM, ruleOfForm } from './rule-form';
import { useRules, type RuleRecord, type RulesTarget } from './rules-context';

const DECISION_STYLE: Record<string, string> = {
  approve: 'bg-emerald-900/60 text-emerald-200',
  reject: 'bg-red-900/60 text-red-200',
  ask: 'bg-amber-900/60 text-amber-200',
};

const EMPTY_RULE = (ruleOfForm(EMPTY_FORM) as { rule: ApprovalRuleInput }).rule;

/**
 * The approval rules of the space: each with what it matches, its decision and mode (enforce, shadow, disabled:
 * changed in place), what it did (hits, shadow hits, last hit) and a warning when, in shadow mode, it would have
 * approved something a person rejected; edit (a new version), delete, or write a new one. A secret its match pins
 * (a `token` argument), or its name holds (names saved before names were masked), shows masked, with the operator's
 * audited Reveal.
 */
export function RulesDialog({ target, onClose }: { target: RulesTarget | undefined; onClose: () => void }) {
  return (
    <Dialog
      open={target !== undefined}
      onClose={onClose}
      size="wide"
      title="Approval rules"
      description="Decided in the server by the space's rule supervisor, with no browser open."
    >
      {target && <RulesPanel target={target} />}
    </Dialog>
  );
}

function RulesPanel({ target }: { target: RulesTarget }) {
  const { rules, supervisor } = useRules();
  const [editing, setEditing] = useState<{ rule?: RuleRecord; draft: ApprovalRuleInput } | undefined>(() => {
    const rule = target.ruleId ? rules.find((r) => r.id === target.ruleId) : undefined;
    if (rule) return { rule, draft: ruleInputOf(rule) };
    return target.draft ? { draft: target.draft } : undefined;
  });
  const highlighted = target.ruleId;

  return (
    <div className="grid gap-4 lg:grid-cols-[minmax(0,1fr)_minmax(0,26rem)]">
      <section aria-label="Rules" className="flex min-w-0 flex-col gap-2">
        {supervisor === null && (
          <p role="alert" className="rounded border border-amber-800 bg-amber-950/40 px-2 py-1 text-xs text-amber-200">
            This space&apos;s config turns the rule supervisor off (<span className="font-mono">automation.supervisor: false</span>): nothing would apply a
            rule, so none can be created or changed here.
          </p>
        )}
        <div className="flex items-center justify-between">
          <p className="text-xs text-slate-400">
            {rules.length === 0
              ? 'No rules yet.'
              : `${rules.length} rule${rules.length === 1 ? '' : 's'}; the strictest matching one wins (reject > ask > approve).`}
          </p>
          <button type="button" className={BUTTON.small} onClick={() => setEditing({ draft: EMPTY_RULE })}>
            New rule
          </button>
        </div>
        <ul className="flex max-h-[60vh] flex-col gap-2 overflow-y-auto">
          {rules.map((rule) => (
            <RuleRow key={rule.id} rule={rule} highlighted={rule.id === highlighted} onEdit={() => setEditing({ rule, draft: ruleInputOf(rule) })} />
          ))}
        </ul>
      </section>
      <section aria-label="Rule editor" className="min-w-0">
        {editing ? (
          <RuleEditor
            key={editing.rule ? `${editing.rule.id}@${editing.rule.version}` : JSON.stringify(editing.draft)}
            ruleId={editing.rule?.id}
            version={editing.rule?.version}
            initial={editing.draft}
            onDone={() => setEditing(undefined)}
          />
        ) : (
          <p className="text-sm text-slate-400">
            Choose a rule to edit it, or write a new one. Rules can also be made from a proposal (Approve for…) or from a suggestion.
          </p>
        )}
      </section>
    </div>
  );
}

function RuleRow({ rule, highlighted, onEdit }: { rule: RuleRecord; highlighted: boolean; onEdit: () => void }) {
  const { setMode, remove } = useRules();
  const revealId = ruleRevealId(rule.id);
  const match = useMaskedValue(revealId, rule.match);
  // Labels, titles and toasts always say the masked name; only the row's text shows it whole once revealed.
  const name = maskedRuleName(rule);
  const secret = match.secret || name !== rule.name;
  const revealed = useRevealed(revealId);
  const shownName = secret && revealed ? rule.name : name;
  const expired = rule.expires_at !== undefined && Date.parse(rule.expires_at) <= Date.now();
  const changeMode = (mode: RuleMode) =>
    setMode(rule, mode).then(
      () => toast(`“${name}” is now ${mode}`),
      (error: Error) => toast.error('The mode was not changed', { description: error.message }),
    );
  const [confirming, setConfirming] = useState(false);
  const onDelete = () => {
    setConfirming(false);
    remove(rule.id).then(
      () => toast(`Rule “${name}” deleted`),
      (error: Error) => toast.error('The rule was not deleted', { description: error.message }),
    );
  };
  return (
    <li
      aria-label={`Rule ${name}`}
      aria-current={highlighted ? 'true' : undefined}
      className={`flex flex-col gap-1 rounded border p-2 text-xs ${highlighted ? 'border-sky-600 ring-1 ring-sky-600' : 'border-slate-800'} ${rule.mode === 'disabled' || expired ? 'opacity-60' : ''}`}
    >
      <div className="flex flex-wrap items-center gap-2">
        <span className={`rounded px-1.5 py-px font-medium ${DECISION_STYLE[rule.decision]}`}>{rule.decision}</span>
        <span className="font-medium text-slate-100">{shownName}</span>
        <span className="text-slate-500">v{rule.version}</span>
        {rule.allow_dangerous && rule.decision === 'approve' && <span className="rounded bg-red-950 px-1.5 py-px text-red-200">approves dangerous tools</span>}
        {expired && <span className="text-slate-400">expired</span>}
        <label className="ml-auto flex items-center gap-1 text-slate-400">
          mode
          <select
            aria-label={`Mode of ${name}`}
            value={rule.mode}
            onChange={(e) => void changeMode(e.target.value as RuleMode)}
            className="rounded border border-slate-700 bg-slate-950 px-1 py-0.5 text-xs text-slate-100 focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-sky-400"
          >
            <Options values={RULE_MODES} />
          </select>
        </label>
      </div>
      <p className="font-mono text-slate-300">{describeMatch(match.shown)}</p>
      {secret && (
        <p>
          <SecretMask envelopeId={revealId} what="rule" />
        </p>
      )}
      <p className="text-slate-400">
        {rule.hits} decided · {rule.shadow_hits} in shadow · last {rule.last_hit_at ? <RelativeTime at={Date.parse(rule.last_hit_at)} /> : 'never'}
        {rule.expires_at && !expired && (
          <>
            {' '}
            · expires <RelativeTime at={Date.parse(rule.expires_at)} future />
          </>
        )}
        {rule.for_session_of && <> · while {rule.for_session_of}’s session lasts</>}
        {rule.max_per_hour !== undefined && <> · at most {rule.max_per_hour}/h</>}
        {rule.reason && <> · reason “{maskText(rule.reason)}”</>}
      </p>
      {rule.shadow_conflicts > 0 && (
        <p role="alert" className="text-amber-300">
          ⚠ Would have approved {rule.shadow_conflicts} proposal{rule.shadow_conflicts === 1 ? '' : 's'} that a person rejected: review it before enforcing.
        </p>
      )}
      <div className="flex gap-2">
        <button type="button" className={BUTTON.small} onClick={onEdit} aria-label={`Edit ${name}`}>
          Edit
        </button>
        <button type="button" className={BUTTON.small} onClick={() => setConfirming(true)} aria-label={`Delete ${name}`}>
          Delete
        </button>
      </div>
      <ConfirmDialog
        open={confirming}
        size="small"
        title={`Delete the rule “${name}”?`}
        description="It stops deciding at once. Its versions stay on file for the audit."
        confirmLabel="Delete rule"
        onConfirm={onDelete}
        onCancel={() => setConfirming(false)}
        classNames={{ cancel: BUTTON.secondary, confirm: BUTTON.danger }}
      />
    </li>
  );
}
