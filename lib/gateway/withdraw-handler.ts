import { GatewayError } from './gateway-error';
import type { ManagementHandler } from './management';

/**
 * `mcp/withdraw`: only the original proposer withdraws (spec §3.3.1), so a withdraw naming a proposal someone else
 * proposed is refused with `not_proposer` and not routed. A proposal the gateway does not know (forgotten by its
 * bounded tracker, or proposed before a restart and kept by nothing) cannot be checked and the withdraw is routed: refusing it would
 * leave proposers unable to withdraw their own older proposals, and participants apply the same rule themselves
 * (the space model ignores a withdraw that is not the proposer's).
 */
export const handleWithdraw: ManagementHandler<'mcp/withdraw'> = (space, sender, { correlation_id }) => {
  const proposal = space.proposals.proposedByAnother(correlation_id, sender.id);
  if (proposal) {
    throw new GatewayError('not_proposer', `only ${proposal.proposer}, who proposed "${proposal.id}", may withdraw it`, {
      proposal_id: proposal.id,
      proposer: proposal.proposer,
    });
  }
  return undefined;
};
