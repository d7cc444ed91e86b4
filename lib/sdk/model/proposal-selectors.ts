import { memoSelector } from './memo-selector';
import type { Proposal } from './proposals-slice';
import type { SpaceState } from './space-state';

const byOldest = (a: Proposal, b: Proposal) => a.at - b.at || a.seq - b.seq;
const byNewest = (a: Proposal, b: Proposal) => b.at - a.at || b.seq - a.seq;

const haystacks = new WeakMap<Proposal, string>();

// Everything a reviewer may search by, lower-cased once per proposal version.
function haystack(p: Proposal): string {
  let text = haystacks.get(p);
  if (text === undefined) {
    const parts = [p.id, p.proposer, p.target ?? '', p.method, p.toolName ?? '', p.state, safeJson(p.arguments), p.risk?.risk_level ?? ''];
    for (const f of p.fulfilments) parts.push(f.by);
    for (const r of p.rejections) parts.push(r.by, r.reason ?? '', r.explanation?.text ?? '');
    if (p.withdrawal) parts.push(p.withdrawal.reason ?? '');
    if (p.outcome?.error?.message) parts.push(p.outcome.error.message);
    text = parts.join('\n').toLowerCase();
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
 * or withdraw reason. An empty query matches everything.
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

/** Every proposal that is no longer pending, newest first, optionally filtered by `matchesProposal`. */
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
