import { maskText, maskValue } from '../../secrets/secret-masking';
import { memoSelector } from './memo-selector';
import type { Proposal } from './proposals-slice';
import type { SpaceState } from './space-state';

const byOldest = (a: Proposal, b: Proposal) => a.at - b.at || a.seq - b.seq;
const byNewest = (a: Proposal, b: Proposal) => b.at - a.at || b.seq - a.seq;

// The search matches a proposal as a person reads it: with its secrets masked (lib/secrets), in its arguments, a
// reject's reason and explanation, a withdraw reason or an error. Were the raw text searched, typing part of a secret
// would find the proposal, and one more character at a time would spell the whole secret out of what the search
// answers, though every card shows it masked. The same holds for any SDK user searching for a person, so there is
// one search and it is this one; like the log's filter (log-selectors.ts), always the masked text, revealed or not.

const haystacks = new WeakMap<Proposal, string>();

// Everything a reviewer may search by, masked and lower-cased once per proposal version (not once per keystroke).
function haystack(p: Proposal): string {
  let text = haystacks.get(p);
  if (text === undefined) {
    const parts = [p.id, p.proposer, p.target ?? '', p.method, p.toolName ?? '', p.state, p.risk?.risk_level ?? ''];
    for (const f of p.fulfilments) parts.push(f.by);
    for (const r of p.rejections) parts.push(r.by, r.reason ?? '', r.explanation?.text ?? '');
    if (p.withdrawal) parts.push(p.withdrawal.reason ?? '');
    if (p.outcome?.error?.message) parts.push(p.outcome.error.message);
    // Arguments masked as a value (a secret-named field is masked whole), the rest as free text.
    text = `${maskText(parts.join('\n'))}\n${safeJson(maskValue(p.arguments))}`.toLowerCase();
    haystacks.set(p, text);
  }
  return text;
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? '';
  } catch {
    return '';
  }
}

/**
 * Whether `p` matches a free-text query: every whitespace-separated term must appear (case-insensitive) in its
 * proposer, target, tool, method, arguments JSON, state, risk level, fulfillers, reject reasons and explanations,
 * withdraw reason or error, with its secrets masked as a card shows them. An empty query matches everything.
 */
export function matchesProposal(p: Proposal, query: string): boolean {
  const terms = query.toLowerCase().split(/\s+/).filter(Boolean);
  if (terms.length === 0) return true;
  const text = haystack(p);
  return terms.every((t) => text.includes(t));
}

/** Pending proposals, oldest first (the approval queue). Stable until proposals change. */
export const pendingProposals = memoSelector(
  (s) => [s.proposals],
  (s): readonly Proposal[] => [...s.proposals.byId.values()].filter((p) => p.state === 'pending').sort(byOldest),
);

/** Every proposal that is no longer pending, newest first, optionally filtered by (masked) `matchesProposal`. */
export const proposalHistory = memoSelector(
  (s) => [s.proposals],
  (s, query: string = ''): readonly Proposal[] =>
    [...s.proposals.byId.values()].filter((p) => p.state !== 'pending' && matchesProposal(p, query)).sort(byNewest),
);

/** All proposals in display order: pending first (oldest first), then the rest (newest first). */
export const orderedProposals = memoSelector(
  (s) => [s.proposals],
  (s): readonly Proposal[] => [...pendingProposals(s), ...proposalHistory(s)],
);

/** One proposal by id. */
export function proposalById(state: SpaceState, id: string): Proposal | undefined {
  return state.proposals.byId.get(id);
}

/** Milliseconds left before a pending proposal expires at `now` (≤ 0 when due), or undefined without a deadline. */
export function msUntilExpiry(p: Proposal, now: number): number | undefined {
  return p.state === 'pending' && p.deadline !== undefined ? p.deadline - now : undefined;
}
