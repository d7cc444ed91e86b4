'use client';

import { useDeferredValue, useId, useMemo, useState, type ComponentProps, type FormEvent, type ReactNode } from 'react';
import { toast } from 'sonner';
import { BUTTON, INPUT } from '@/components/participants/styles';
import { useSpace } from '@/components/session/space-session';
import { SecretMask, useRevealed } from '@/components/watch/revealed-secrets';
import type { ApprovalRuleInput } from '@/lib/rules/approval-rule';
import { approvalRuleInputSchema, RULE_DECISIONS, RULE_MODES } from '@/lib/rules/approval-rule';
import { validateRule, type RuleIssue } from '@/lib/rules/rule-engine';
import { previewRule } from '@/lib/rules/rule-preview';
import { describeMatch } from '@/lib/rules/rule-shape';
import { maskText, maskValue } from '@/lib/secrets/secret-masking';
import { maskedRuleName, ruleRevealId } from './masked-rule-name';
import {
  ARGUMENTS_HINT,
  fieldLabel,
  formOf,
  MATCH_FIELDS,
  MATCH_HINTS,
  ruleOfForm,
  secretFieldsOf,
  showSecrets,
  unmaskedRule,
  type RuleForm,
} from './rule-form';
import { argumentsAtAGlance } from '@/components/proposals/proposal-content';
import { useRules } from './rules-context';

/**
 * A problem's message for the editor: a missed example says which proposal, as the editor never shows examples. Its
 * secrets masked (an example's arguments, a pattern quoted in a message).
 */
function issueText(issue: RuleIssue, examples: ApprovalRuleInput['examples']): string {
  const [first, key, index] = issue.path;
  if (first !== 'examples' || typeof index !== 'number') return maskText(issue.message);
  const example = examples?.[key === 'not_match' ? 'not_match' : 'match']?.[index];
  const facts = example && maskValue(example);
  const glance = facts && argumentsAtAGlance({ method: facts.method, arguments: facts.arguments });
  const which = facts
    ? ` (${describeMatch({ proposer: facts.proposer, target: facts.targets?.[0], tool: facts.tool ?? undefined, method: facts.tool ? undefined : facts.method })}${glance ? ` · ${glance}` : ''})`
    : '';
  return key === 'not_match'
    ? `it now also covers a proposal it was made to leave alone${which}: narrow the match`
    : `it no longer covers the proposal it was made from${which}: widen the match, or write a new rule`;
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

const DECISION_VERB = { approve: 'approves', reject: 'rejects', ask: 'asks a person about' } as const;

/**
 * Writes or edits one rule: its match as patterns of the capability language (checked live, as the server will),
 * its decision and mode, limits, and a preview that replays the space's recent proposals through it, naming those
 * a person decided the other way. Saving an edit makes the rule's next version.
 *
 * A secret the match pins (a `token` argument, a `ghp_…` anywhere) shows masked, as everywhere in the control room,
 * with "secret masked" and the operator's audited Reveal, which shows the fields whole to edit them (the ones not
 * changed since). A masked value left as it is saves the real one (lib/secrets `unmaskEdited`): the rule still
 * matches the calls. The name shows, and is saved, with its secrets masked.
 */
export function RuleEditor({ ruleId, version, initial, onDone }: { ruleId?: string; version?: number; initial: ApprovalRuleInput; onDone: () => void }) {
  const rules = useRules();
  const revealId = ruleRevealId(ruleId);
  const revealed = useRevealed(revealId);
  const secrets = useMemo(() => secretFieldsOf(initial), [initial]);
  const hasSecretFields = Object.keys(secrets).length > 0;
  const initialName = useMemo(() => maskedRuleName(initial), [initial]);
  const holdsSecret = hasSecretFields || initialName !== initial.name;
  const [form, setForm] = useState<RuleForm>(() => showSecrets({ ...formOf(initial), name: initialName }, secrets, revealed));
  // Revealed (or masked again) while open: the secret fields not changed since follow.
  const [shownWhole, setShownWhole] = useState(revealed);
  if (shownWhole !== revealed) {
    setShownWhole(revealed);
    setForm((f) => showSecrets(f, secrets, revealed));
  }
  const [saving, setSaving] = useState(false);
  const idBase = useId();
  const id = (field: string) => `${idBase}-${field}`;
  const set =
    <K extends keyof RuleForm>(key: K) =>
    (value: RuleForm[K]) =>
      setForm((f) => ({ ...f, [key]: value }));

  // The rule as it will be saved: the secrets left masked put back.
  const read = useMemo((): { rule: ApprovalRuleInput; unresolved: string[] } | { field: string; message: string } => {
    const said = ruleOfForm(form);
    if (!('rule' in said)) return said;
    return hasSecretFields ? unmaskedRule(said.rule, initial) : { rule: said.rule, unresolved: [] };
  }, [form, hasSecretFields, initial]);
  const checked = useMemo(() => ('rule' in read && read.unresolved.length === 0 ? validateRule(read.rule) : undefined), [read]);
  const issues: RuleIssue[] =
    'field' in read
      ? [{ path: ['match', read.field], message: read.message }]
      : read.unresolved.length > 0
        ? [{ path: ['match'], message: `${read.unresolved.join(', ')} stands for more than one secret of this rule: reveal it to edit it whole` }]
        : checked && !checked.ok
          ? checked.issues
          : [];
  const issueAt = (...path: string[]) => {
    const issue = issues.find((i) => path.every((p, n) => i.path[n] === p));
    return issue && issueText(issue, form.keep.examples);
  };

  // The space's proposals the preview replays (the store keeps a bounded window of them).
  // The slice, not its map: the map changes in place, and only the slice is new when a proposal changes.
  const slice = useSpace((s) => s.proposals);
  const proposals = useMemo(() => [...slice.byId.values()], [slice]);
  const draft = useDeferredValue(checked?.ok ? checked.rule : undefined);
  const preview = useMemo(() => {
    if (!draft) return undefined;
    const rule = { ...approvalRuleInputSchema.parse(draft), id: ruleId ?? 'draft', version: version ?? 0, created_by: '', created_at: '' };
    return previewRule(rule, proposals);
  }, [draft, proposals, ruleId, version]);

  async function save(event: FormEvent) {
    event.preventDefault();
    if (!checked?.ok) return;
    setSaving(true);
    try {
      const saved = ruleId ? await rules.update(ruleId, checked.rule) : await rules.create(checked.rule);
      toast.success(`Rule “${maskedRuleName(saved)}” saved (v${saved.version})`, {
        description: saved.mode === 'shadow' ? 'Shadow mode: it counts what it would decide, and decides nothing.' : undefined,
      });
      onDone();
    } catch (error) {
      toast.error('The rule was not saved', { description: (error as Error).message });
    } finally {
      setSaving(false);
    }
  }

  const verb = form.decision === 'approve' ? 'approved' : form.decision === 'reject' ? 'rejected' : 'asked about';
  return (
    <form onSubmit={save} aria-label={ruleId ? `Edit rule ${initialName}` : 'New rule'} className="flex flex-col gap-3">
      {holdsSecret && (
        <p id={id('secret')} className="text-xs text-slate-400">
          <SecretMask envelopeId={revealId} what="rule" />{' '}
          {revealed
            ? 'Its values show whole to edit them; the name keeps them masked.'
            : 'A masked value (like ghp_…abcd) left as it is keeps the real one, so the rule still matches the calls.'}
        </p>
      )}
      <InputField
        id={id('name')}
        label="Name"
        error={issueAt('name')}
        describedBy={initialName !== initial.name ? id('secret') : undefined}
        data-autofocus
        value={form.name}
        onChange={set('name')}
      />
      <div className="grid grid-cols-2 gap-2">
        <Field id={id('decision')} label="Decision">
          <select id={id('decision')} className={INPUT} value={form.decision} onChange={(e) => set('decision')(e.target.value as RuleForm['decision'])}>
            <Options values={RULE_DECISIONS} />
          </select>
        </Field>
        <Field id={id('mode')} label="Mode">
          <select id={id('mode')} className={INPUT} value={form.mode} onChange={(e) => set('mode')(e.target.value as RuleForm['mode'])}>
            <Options values={RULE_MODES} />
          </select>
        </Field>
      </div>

      <fieldset className="flex flex-col gap-2 rounded border border-slate-800 p-2" {...errorOf(id('examples'), issueAt('examples'))}>
        <legend className="px-1 text-xs text-slate-400">
          Matches proposals whose… (empty: any; e.g. <span className="font-mono">agent-*</span>, <span className="font-mono">!auditor</span>,{' '}
          <span className="font-mono">[write_file, move_file]</span>, <span className="font-mono">/^read_/</span>)
        </legend>
        <div className="grid grid-cols-2 gap-2">
          {MATCH_FIELDS.map((field) => (
            <InputField
              key={field}
              id={id(field)}
              label={field}
              error={issueAt('match', field)}
              describedBy={secrets[field] && id('secret')}
              className={`${INPUT} font-mono`}
              value={form[field]}
              placeholder={MATCH_HINTS[field]}
              onChange={set(field)}
            />
          ))}
        </div>
        <Field id={id('arguments')} label="arguments (JSON object of patterns)" error={issueAt('match', 'arguments')}>
          <textarea
            id={id('arguments')}
            rows={3}
            className={`${INPUT} font-mono text-xs`}
            value={form.arguments}
            placeholder={ARGUMENTS_HINT}
            onChange={(e) => set('arguments')(e.target.value)}
            {...errorOf(id('arguments'), issueAt('match', 'arguments'), secrets.arguments && id('secret'))}
          />
        </Field>
        {issueAt('examples') && (
          <p id={`${id('examples')}-error`} className="text-xs text-red-300">
            {issueAt('examples')}
          </p>
        )}
      </fieldset>

      {form.decision === 'reject' && (
        <InputField
          id={id('reason')}
          label="Reason the proposer is told"
          error={issueAt('reason')}
          value={form.reason}
          placeholder="policy"
          onChange={set('reason')}
        />
      )}
      <div className="grid grid-cols-2 gap-2">
        <InputField
          id={id('expires')}
          label="Expires (optional)"
          error={issueAt('expires_at')}
          type="datetime-local"
          value={form.expiresAt}
          onChange={set('expiresAt')}
        />
        <InputField
          id={id('quota')}
          label="At most per hour (optional)"
          error={issueAt('max_per_hour')}
          type="number"
          min={1}
          value={form.maxPerHour}
          onChange={set('maxPerHour')}
        />
      </div>
      {form.decision === 'ask' && (
        <div className="grid grid-cols-2 gap-2">
          <InputField
            id={id('timeout')}
            label="If nobody decides within (seconds)"
            error={issueAt('timeout', 'after_seconds')}
            type="number"
            min={1}
            value={form.timeoutSeconds}
            onChange={set('timeoutSeconds')}
          />
          <Field id={id('timeout-action')} label="then">
            <select
              id={id('timeout-action')}
              className={INPUT}
              value={form.timeoutAction}
              onChange={(e) => set('timeoutAction')(e.target.value as RuleForm['timeoutAction'])}
            >
              <option value="escalate">escalate (mark urgent)</option>
              <option value="reject">reject (reason timeout)</option>
            </select>
          </Field>
        </div>
      )}
      {form.decision === 'approve' && (
        <div className="flex flex-col gap-1">
          <label className="flex items-center gap-2 text-sm text-slate-200">
            <input type="checkbox" className="size-4 accent-red-500" checked={form.allowDangerous} onChange={(e) => set('allowDangerous')(e.target.checked)} />
            Also approve dangerous and confirm-first tools
          </label>
          {form.allowDangerous && (
            <p role="alert" className="rounded border border-red-800 bg-red-950/40 px-2 py-1 text-xs text-red-200">
              Tools marked dangerous or asking for confirmation will run with no one looking. Keep the match narrow.
            </p>
          )}
        </div>
      )}

      {issues.length > 0 && (
        <ul aria-label="Problems" className="flex flex-col gap-0.5 text-xs text-red-300">
          {issues.map((issue, n) => (
            <li key={n}>
              <span className="font-medium">{fieldLabel(issue.path)}</span>: {issueText(issue, form.keep.examples)}
            </li>
          ))}
        </ul>
      )}

      {preview && (
        <section aria-label="Preview" className="rounded border border-slate-800 p-2 text-xs text-slate-300">
          <p>
            Of the {preview.considered === 1 ? 'last proposal' : `last ${plural(preview.considered, 'proposal')}`} in this space, it would have {verb}{' '}
            <strong className="text-slate-100">{preview.matched.length}</strong>
            {form.decision === 'approve' && !form.allowDangerous ? ' (dangerous tools aside)' : ''}.
          </p>
          {preview.disagreements.length > 0 && (
            <div className="mt-1 text-amber-200">
              <p>
                {preview.disagreements.length === 1 ? 'One of them was' : `${preview.disagreements.length} of them were`}{' '}
                {preview.disagreements[0].human === 'approve' ? 'approved' : 'rejected'} by a person:
              </p>
              <ul className="mt-0.5 list-disc pl-5">
                {preview.disagreements.slice(0, 5).map(({ proposal, by }) => (
                  <li key={proposal.id}>
                    <span className="font-mono">{proposal.toolName ?? proposal.method}</span> from {proposal.proposer} ({by})
                  </li>
                ))}
              </ul>
            </div>
          )}
        </section>
      )}

      {checked?.ok && (
        <p role="note" aria-label="What saving does" className="text-xs text-slate-300">
          {form.mode === 'disabled'
            ? 'Saved disabled, it does nothing: '
            : form.mode === 'shadow'
              ? `Saved in shadow mode, it decides nothing and counts what it would ${form.decision === 'ask' ? 'ask about' : form.decision}: `
              : `Saved, it ${DECISION_VERB[form.decision]} `}
          <span className="font-mono text-slate-100">{describeMatch(revealed ? checked.rule.match : maskValue(checked.rule.match))}</span>
          {form.mode === 'enforce' && form.decision !== 'ask' ? ', with no one asked' : ''}.
        </p>
      )}

      <div className="flex justify-end gap-2">
        <button type="button" className={BUTTON.secondary} onClick={onDone}>
          Cancel
        </button>
        <button type="submit" className={BUTTON.primary} disabled={!checked?.ok || saving}>
          {ruleId ? `Save as v${(version ?? 0) + 1}` : 'Create rule'}
        </button>
      </div>
    </form>
  );
}

/** A labelled input and its error, whose id (`<id>-error`) the input names in `aria-describedby`. */
function Field({ id, label, error, children }: { id: string; label: string; error?: string; children: ReactNode }) {
  return (
    <div className="flex min-w-0 flex-col gap-1">
      <label htmlFor={id} className="text-xs text-slate-400">
        {label}
      </label>
      {children}
      {error && (
        <p id={`${id}-error`} className="text-xs text-red-300">
          {error}
        </p>
      )}
    </div>
  );
}

/** An input and its error (and a note about it, `describedBy`), tied together for assistive technology. */
function errorOf(inputId: string, error: string | undefined, describedBy?: string) {
  const ids = [describedBy, error === undefined ? undefined : `${inputId}-error`].filter(Boolean).join(' ');
  return { 'aria-invalid': error !== undefined, 'aria-describedby': ids === '' ? undefined : ids };
}

/** A text input in its Field, reporting its value as it changes. */
function InputField({
  id,
  label,
  error,
  describedBy,
  onChange,
  className = INPUT,
  ...input
}: { id: string; label: string; error?: string; describedBy?: string; onChange: (value: string) => void } & Omit<ComponentProps<'input'>, 'id' | 'onChange'>) {
  return (
    <Field id={id} label={label} error={error}>
      <input id={id} className={className} onChange={(e) => onChange(e.target.value)} {...input} {...errorOf(id, error, describedBy)} />
    </Field>
  );
}

/** A select's options, each value its own label. */
export function Options({ values }: { values: readonly string[] }) {
  return values.map((value) => (
    <option key={value} value={value}>
      {value}
    </option>
  ));
}
