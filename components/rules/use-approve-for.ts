'use client';

import { useCallback } from 'react';
import { toast } from 'sonner';
import { needsConfirmation } from '@/components/proposals/use-proposal-actions';
import type { ApprovalRuleInput } from '@/lib/rules/approval-rule';
import { describeMatch, narrowestMatch, proposalFacts } from '@/lib/rules/rule-shape';
import { maskValue } from '@/lib/secrets/secret-masking';
import type { Proposal } from '@/lib/store';
import { maskedRuleName, RULE_NAME_MAX } from './masked-rule-name';
import { useRules } from './rules-context';

/** How long the toast offering Undo stays: long enough to read it and change one's mind. */
const UNDO_TOAST_MS = 15_000;

/** How long "Approve for 1 hour" lasts. */
const HOUR_MS = 60 * 60 * 1000;

/** How long an approval of one proposal lasts as a rule: an hour, the proposer's session, or until taken back. */
export type ApprovalScope = 'hour' | 'session' | 'always';

/** The durations in the order the rule dialog offers them. */
export const APPROVAL_SCOPES: readonly ApprovalScope[] = ['always', 'hour', 'session'];

export function scopeLabel(scope: ApprovalScope, proposer: string): string {
  return scope === 'hour' ? 'for 1 hour' : scope === 'session' ? `for ${proposer}’s session` : 'always';
}

/** When a rule of that duration ends, in words. */
export function scopeEnd(scope: ApprovalScope, proposer: string): string {
  return scope === 'hour' ? 'an hour from now' : scope === 'session' ? `when ${proposer} leaves the space` : 'when someone deletes it';
}

/**
 * The narrowest rule that approves exactly this proposal's shape (its proposer, target, tool and the folder of its
 * paths; see `narrowestMatch`) for the scope; the proposal itself is one of its examples, so the server refuses a
 * rule that would not match it. A dangerous or confirm-first tool gets `allow_dangerous`: the person confirmed it.
 * Its name describes the match with its secrets masked (a pinned `token` shows `…abcd`, as on the card): names are
 * shown wherever rules are, while the match keeps the real values the calls are matched against.
 */
export function approvalRuleFor(p: Proposal, scope: ApprovalScope, now = Date.now()): ApprovalRuleInput {
  const facts = proposalFacts(p);
  const match = narrowestMatch([facts]);
  return {
    name: maskedRuleName({ name: `${describeMatch(match)} (${scopeLabel(scope, p.proposer)})`, match }).slice(0, RULE_NAME_MAX),
    decision: 'approve',
    mode: 'enforce',
    match,
    ...(needsConfirmation(p) && { allow_dangerous: true }),
    ...(scope === 'hour' && { expires_at: new Date(now + HOUR_MS).toISOString() }),
    ...(scope === 'session' && { for_session_of: p.proposer }),
    examples: { match: [facts], not_match: [] },
  };
}

/**
 * "Always approve like this" / "Approve for 1 hour / for this session" (after the rule dialog showed its scope):
 * creates the rule, and the space's rule supervisor approves this proposal (and the next ones like it) through the
 * gateway, so the card says which rule decided. The toast offers Undo, which deletes the rule (what already ran
 * stays run).
 */
export function useApproveFor() {
  const rules = useRules();
  return useCallback(
    async (p: Proposal, scope: ApprovalScope): Promise<boolean> => {
      try {
        const rule = await rules.create(approvalRuleFor(p, scope));
        // As saved it is masked already; a toast never shows a secret, whatever the server answered.
        const name = maskedRuleName(rule);
        toast.success(`Approved ${scopeLabel(scope, p.proposer)}`, {
          duration: UNDO_TOAST_MS,
          description: `Rule “${name}” approves ${describeMatch(maskValue(rule.match))}.`,
          action: {
            label: 'Undo',
            onClick: () =>
              void rules.remove(rule.id).then(
                () => toast(`Rule “${name}” deleted: such calls ask a person again`),
                (error: Error) => toast.error('The rule was not deleted', { description: error.message }),
              ),
          },
        });
        return true;
      } catch (error) {
        toast.error(`Could not approve ${scopeLabel(scope, p.proposer)}`, { description: (error as Error).message });
        return false;
      }
    },
    [rules],
  );
}

/** Why no rule can approve from this browser now (not an operator, no supervisor, not loaded yet), or undefined. */
export function ruleBlocker(rules: Pick<ReturnType<typeof useRules>, 'mayManage' | 'supervisor'>): string | undefined {
  if (!rules.mayManage) return 'only operators make approval rules';
  if (rules.supervisor === null) return 'this space applies no rules (its config sets automation.supervisor: false)';
  if (rules.supervisor === undefined) return 'the rules are still loading';
  return undefined;
}
