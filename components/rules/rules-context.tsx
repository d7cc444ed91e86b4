'use client';

import { createContext, useCallback, useContext, useMemo, useState, type ReactNode } from 'react';
import { spaceApi } from '@/components/session/space-api';
import { useSpaceSession } from '@/components/session/space-session';
import { useIsOperator } from '@/components/session/use-is-operator';
import { useVisiblePoll } from '@/components/session/use-visible-poll';
import type { ApprovalRule, ApprovalRuleInput, RuleMode, RuleStats } from '@/lib/rules/approval-rule';
import { ruleInputOf } from '@/lib/rules/approval-rule';
import { RulesDialog } from './rules-dialog';

/** How often the rules (and their hits) are read again while the tab is visible. */
const RULES_POLL_MS = 3_000;

/** A rule as `GET /api/spaces/{space}/rules` lists it: the current version with what it has done. */
export type RuleRecord = ApprovalRule & RuleStats;

/** What the rules dialog opens on: the list, one rule, or a new rule drafted elsewhere (a suggestion, a card). */
export type RulesTarget = { ruleId?: string; draft?: ApprovalRuleInput };

interface RulesView {
  /** Whether I may read and change rules (an operator); others see no entry. */
  mayManage: boolean;
  rules: readonly RuleRecord[];
  /** The participant that applies them, or null when the space's config turns the supervisor off (then the API refuses rules). */
  supervisor: string | null | undefined;
  open(target?: RulesTarget): void;
  create(input: ApprovalRuleInput): Promise<ApprovalRule>;
  update(id: string, input: ApprovalRuleInput): Promise<ApprovalRule>;
  setMode(rule: RuleRecord, mode: RuleMode): Promise<ApprovalRule>;
  remove(id: string): Promise<void>;
}

const refused = () => Promise.reject(new Error('no rules provider'));
const Context = createContext<RulesView>({
  mayManage: false,
  rules: [],
  supervisor: undefined,
  open: () => undefined,
  create: refused,
  update: refused,
  setMode: refused,
  remove: refused,
});

export function useRules(): RulesView {
  return useContext(Context);
}

/**
 * The space's approval rules for operators: read from the rules API (polled, so hits and last hits stay current),
 * changed through it (the server checks each rule whole and versions every change), and the rules dialog.
 */
export function RulesProvider({ children }: { children: ReactNode }) {
  const { space, token } = useSpaceSession();
  const mayManage = useIsOperator();
  const [listing, setListing] = useState<{ rules: readonly RuleRecord[]; supervisor: string | null }>();
  const [target, setTarget] = useState<RulesTarget>();

  const poll = useCallback(
    async (live: () => boolean) => {
      if (!mayManage) return;
      const answer = await spaceApi<{ rules: RuleRecord[]; supervisor: string | null }>(space, token, '/rules');
      if (live()) setListing(answer);
    },
    [space, token, mayManage],
  );
  useVisiblePoll(poll, RULES_POLL_MS);

  // A change shows at once (an edit keeps the stats of the versions before it); the next poll brings new hits.
  const saved = useCallback((rule: ApprovalRule) => {
    setListing((current) => {
      if (!current) return current;
      const before = current.rules.find((r) => r.id === rule.id);
      const record: RuleRecord = {
        ...rule,
        hits: before?.hits ?? 0,
        shadow_hits: before?.shadow_hits ?? 0,
        shadow_conflicts: before?.shadow_conflicts ?? 0,
        last_hit_at: before?.last_hit_at ?? null,
      };
      return { ...current, rules: before ? current.rules.map((r) => (r.id === rule.id ? record : r)) : [...current.rules, record] };
    });
    return rule;
  }, []);
  const create = useCallback(
    async (input: ApprovalRuleInput) => saved((await spaceApi<{ rule: ApprovalRule }>(space, token, '/rules', { method: 'POST', body: input })).rule),
    [space, token, saved],
  );
  const update = useCallback(
    async (id: string, input: ApprovalRuleInput) =>
      saved((await spaceApi<{ rule: ApprovalRule }>(space, token, `/rules/${encodeURIComponent(id)}`, { method: 'PUT', body: input })).rule),
    [space, token, saved],
  );
  const setMode = useCallback((rule: RuleRecord, mode: RuleMode) => update(rule.id, { ...ruleInputOf(rule), mode }), [update]);
  const remove = useCallback(
    async (id: string) => {
      await spaceApi(space, token, `/rules/${encodeURIComponent(id)}`, { method: 'DELETE' });
      setListing((current) => current && { ...current, rules: current.rules.filter((r) => r.id !== id) });
    },
    [space, token],
  );
  const open = useCallback((next: RulesTarget = {}) => setTarget(next), []);

  const value = useMemo<RulesView>(
    () => ({ mayManage, rules: listing?.rules ?? [], supervisor: listing?.supervisor, open, create, update, setMode, remove }),
    [mayManage, listing, open, create, update, setMode, remove],
  );
  return (
    <Context value={value}>
      {children}
      {mayManage && <RulesDialog target={target} onClose={() => setTarget(undefined)} />}
    </Context>
  );
}
