'use client';

import { useDeferredValue, useMemo, useState } from 'react';
import { toast } from 'sonner';
import { RelativeTime } from '@/components/participants/relative-time';
import { buttonClass } from '@/components/proposals/button-styles';
import { useSpace, useSpaceSession } from '@/components/session/space-session';
import { useStoredState } from '@/components/session/use-stored-state';
import { SecretMask, useMaskedValue } from '@/components/watch/revealed-secrets';
import type { RuleMode } from '@/lib/rules/approval-rule';
import { humanDecisions } from '@/lib/rules/human-decisions';
import { RuleEngine } from '@/lib/rules/rule-engine';
import { proposalFacts } from '@/lib/rules/rule-shape';
import { suggestRules, type RuleSuggestion } from '@/lib/rules/rule-suggestions';
import type { Proposal } from '@/lib/store';
import { maskedRuleName } from './masked-rule-name';
import { useRules } from './rules-context';

/** At most this many suggestions show at once (the rest wait until these are taken or dismissed). */
const SHOWN = 2;
const NO_KEYS: string[] = [];
/** What a decision line shows of the arguments JSON. */
const ARGUMENTS_SHOWN = 120;
const NO_ARGUMENTS = {};

/**
 * Learning from people: after the same decision on proposals of one shape three times, the narrowest rule that
 * covers them is offered, with the decisions it is based on, to start in shadow mode (it counts, decides nothing)
 * or enforced at once, or to edit first. A dismissal is remembered in this browser; a shape a rule already covers
 * (enforced or in shadow) is not offered again.
 */
export function RuleSuggestions() {
  const { space } = useSpaceSession();
  const rules = useRules();
  // The slice, not its map: the map changes in place, and only the slice is new when a proposal changes.
  const proposals = useDeferredValue(useSpace((s) => s.proposals));
  const [dismissed, updateDismissed] = useStoredState<string[]>(`mew.dismissed-rule-suggestions.${space}`, NO_KEYS);
  const [creating, setCreating] = useState<string>();

  const suggestions = useMemo(() => {
    if (!rules.mayManage || !rules.supervisor) return [];
    const engine = new RuleEngine(rules.rules);
    return suggestRules(humanDecisions(proposals.byId.values()), {
      dismissed: new Set(dismissed),
      covered: (d) => {
        const outcome = engine.decide(proposalFacts(d.proposal), Date.now(), d.proposal.risk);
        return outcome.decision !== 'none' || outcome.shadow.length > 0;
      },
    })
      .slice(0, SHOWN)
      .map((suggestion) => ({ ...suggestion, name: maskedRuleName(suggestion.rule) }));
  }, [rules.mayManage, rules.supervisor, rules.rules, proposals, dismissed]);

  if (suggestions.length === 0) return null;

  async function accept(suggestion: RuleSuggestion & { name: string }, mode: RuleMode) {
    setCreating(suggestion.key);
    try {
      const rule = await rules.create({ ...suggestion.rule, name: suggestion.name, mode });
      toast.success(`Rule “${rule.name}” created`, {
        description: mode === 'shadow' ? 'Shadow mode: it counts what it would decide until you enforce it.' : 'It decides proposals like these from now on.',
        action: { label: 'Open', onClick: () => rules.open({ ruleId: rule.id }) },
      });
    } catch (error) {
      toast.error('The rule was not created', { description: (error as Error).message });
    } finally {
      setCreating(undefined);
    }
  }

  return (
    <ul aria-label="Suggested rules" className="flex flex-col gap-2">
      {suggestions.map((suggestion) => {
        const { rule, basedOn, name } = suggestion;
        const [latest] = basedOn;
        const what = `${latest.proposal.toolName ?? latest.proposal.method} from ${latest.proposal.proposer}`;
        return (
          <li
            key={suggestion.key}
            aria-label={`Suggested rule: ${name}`}
            className="flex flex-col gap-1.5 rounded-lg border border-violet-800 bg-violet-950/30 p-2 text-xs text-slate-200"
          >
            <p>
              You {rule.decision === 'approve' ? 'approved' : 'rejected'} {what} {basedOn.length} times. Make it a rule?{' '}
              <span className="font-mono text-violet-200">{name}</span>
            </p>
            {rule.allow_dangerous && (
              <p className="text-red-300">The tool is marked dangerous or asks for confirmation: this rule would run it with no one asked.</p>
            )}
            <details>
              <summary className="cursor-pointer text-slate-400 focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-sky-500">
                The decisions it is based on
              </summary>
              <ul className="mt-1 list-disc pl-5 text-slate-300">
                {basedOn.map((d) => (
                  <li key={d.proposal.id}>
                    {d.decision === 'approve' ? 'approved' : `rejected (${d.reason ?? 'no reason'})`} by {d.by} <RelativeTime at={d.at} />:{' '}
                    <DecidedArguments proposal={d.proposal} />
                  </li>
                ))}
              </ul>
            </details>
            <div className="flex flex-wrap gap-2">
              <button
                type="button"
                disabled={creating !== undefined}
                onClick={() => void accept(suggestion, 'shadow')}
                className={`${buttonClass.base} ${buttonClass.grant} px-2 py-0.5 text-xs`}
              >
                Try it in shadow mode
              </button>
              <button
                type="button"
                disabled={creating !== undefined}
                onClick={() => void accept(suggestion, 'enforce')}
                className={`${buttonClass.base} ${buttonClass.neutral} px-2 py-0.5 text-xs`}
              >
                Create and enforce
              </button>
              <button
                type="button"
                onClick={() => rules.open({ draft: { ...rule, name } })}
                className={`${buttonClass.base} ${buttonClass.neutral} px-2 py-0.5 text-xs`}
              >
                Edit first
              </button>
              <button
                type="button"
                onClick={() => updateDismissed((keys) => [...keys, suggestion.key])}
                className={`${buttonClass.base} ${buttonClass.neutral} px-2 py-0.5 text-xs`}
                aria-label={`Dismiss the suggestion ${name}`}
              >
                Dismiss
              </button>
            </div>
          </li>
        );
      })}
    </ul>
  );
}

/** The start of a decided proposal's arguments, its secrets masked as on its card (with the operator's audited Reveal). */
function DecidedArguments({ proposal }: { proposal: Proposal }) {
  const { shown, secret } = useMaskedValue(proposal.id, proposal.arguments ?? proposal.params ?? NO_ARGUMENTS);
  return (
    <>
      <span className="font-mono">{JSON.stringify(shown).slice(0, ARGUMENTS_SHOWN)}</span>
      {secret && (
        <>
          {' '}
          <SecretMask envelopeId={proposal.id} what="proposal" />
        </>
      )}
    </>
  );
}
