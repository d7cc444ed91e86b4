import { maskValue } from '../secrets/secret-masking';
import type { Proposal } from '../sdk/model/proposals-slice';
import type { ProposalEvent } from './proposal-watch';

/** Characters of the argument summary in a notification (a lock screen shows two or three lines). */
export const ARGUMENT_SUMMARY_CHARS = 120;
/** Characters of one argument's value in that summary. */
const ARGUMENT_VALUE_CHARS = 40;

/** What the proposal would call: its tool, else its method. */
export function proposedCall(proposal: Proposal): string {
  return proposal.toolName ?? proposal.method;
}

/** `"{proposer} proposes {tool}"`. */
export function proposalTitle(proposal: Proposal): string {
  return `${proposal.proposer} proposes ${proposedCall(proposal)}`;
}

/** `path: "notes/a.md", content: "Meeting…"`: each argument shortened, the whole cut to ARGUMENT_SUMMARY_CHARS. */
export function argumentSummary(args: unknown): string {
  if (args === undefined) return 'no arguments';
  // Masked before shortening: a cut secret would no longer be recognised.
  const masked = maskValue(args);
  const entries = masked !== null && typeof masked === 'object' && !Array.isArray(masked) ? Object.entries(masked) : [['arguments', masked] as const];
  const text = entries.map(([key, value]) => `${key}: ${shorten(JSON.stringify(value) ?? 'null', ARGUMENT_VALUE_CHARS)}`).join(', ');
  return shorten(text, ARGUMENT_SUMMARY_CHARS);
}

/** How a decided proposal ended, in words: `approved by human`, `rejected by human (unsafe)`, `withdrawn by agent`. */
export function outcomeLine(event: ProposalEvent): string {
  const { proposal } = event;
  if (event.type === 'fulfilled') return `approved by ${proposal.fulfilment?.by ?? 'someone'}`;
  if (event.type === 'withdrawn') return `withdrawn by ${proposal.proposer}${proposal.withdrawal?.reason ? ` (${proposal.withdrawal.reason})` : ''}`;
  const rejection = proposal.rejections[0];
  return `rejected by ${rejection?.by ?? 'someone'}${rejection?.reason ? ` (${rejection.reason})` : ''}`;
}

export function shorten(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
