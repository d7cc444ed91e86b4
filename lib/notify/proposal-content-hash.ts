import { createHash } from 'node:crypto';
import { canonicalJson } from '../gateway/audit/canonical-json';

/** The parts of an `mcp/proposal` that say what would be done (its id, time and cursor are not content). */
export interface ProposalContent {
  kind: string;
  from: string;
  to?: readonly string[];
  payload: unknown;
}

/** sha256 (base64url) of the canonical JSON of a proposal's kind, from, to and payload: what an action token is bound to. */
export function proposalContentHash({ kind, from, to, payload }: ProposalContent): string {
  return createHash('sha256').update(canonicalJson({ kind, from, to, payload })).digest('base64url');
}
