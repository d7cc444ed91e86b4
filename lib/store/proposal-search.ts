import { maskValue } from '../secrets/secret-masking';
import { memoSelector } from '../sdk/model/memo-selector';
import { matchesProposal as matchesUnmasked } from '../sdk/model/proposal-selectors';
import type { Proposal } from '../sdk/model/proposals-slice';
import type { SpaceState } from '../sdk/model/space-state';

// The proposal history's search matches what the cards show: the proposal with its secrets masked (lib/secrets), so
// typing part of a secret in its arguments, an explanation or an error never finds the card (which would leak the
// secret a character at a time). Like the log's filter (log-filter.ts), always the masked text, revealed or not, and
// these shadow the SDK model's own `matchesProposal`/`proposalHistory` in everything `@/lib/store` exports.

/** Each proposal version with its secrets masked (itself when it holds none), masked once, not per keystroke. */
const maskedProposals = new WeakMap<Proposal, Proposal>();

function masked(p: Proposal): Proposal {
  let m = maskedProposals.get(p);
  if (m === undefined) {
    m = maskValue(p);
    maskedProposals.set(p, m);
  }
  return m;
}

/**
 * Whether `p` matches a free-text query as the SDK model's `matchesProposal` has it (every term in its proposer,
 * tool, arguments, explanations, …), searched with its secrets masked.
 */
export function matchesProposal(p: Proposal, query: string): boolean {
  if (query.trim() === '') return true;
  return matchesUnmasked(masked(p), query);
}

const byNewest = (a: Proposal, b: Proposal) => b.at - a.at || b.seq - a.seq;

/** Every proposal that is no longer pending, newest first, optionally filtered by (masked) `matchesProposal`. */
export const proposalHistory = memoSelector(
  (s) => [s.proposals],
  (s: SpaceState, query: string = ''): readonly Proposal[] =>
    [...s.proposals.byId.values()].filter((p) => p.state !== 'pending' && matchesProposal(p, query)).sort(byNewest),
);
