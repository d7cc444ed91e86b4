'use client';

import { useMemo } from 'react';
import { toast } from 'sonner';
import { toastRefusal } from '@/components/participants/action-outcome';
import { useSpaceSession } from '@/components/session/space-session';
import { isDangerousRisk } from '@/lib/protocol';
import type { MEWParticipant } from '@/lib/sdk/mew-participant';
import { hasApproved, type GrantState, type Proposal, type SpaceState } from '@/lib/store';
import { ApprovalRecorded } from '@/lib/sdk/mcp-request-tracker';
import { reasonLabel } from './reject-reasons';
import { participantsOffering } from './store-access';

/** Why an action is not possible now, or undefined when it is. */
export type Blocker = string | undefined;

/** Every tool risk that calls for the extra confirmation step on a plain Approve. */
export function needsConfirmation(p: Proposal): boolean {
  return isDangerousRisk(p.risk);
}

/**
 * Where a fulfilment goes: the proposal's `to`; for a broadcast proposal, the one participant whose tools/list
 * offers the tool (the store resolves its risk the same way).
 */
export function targetsOf(p: Proposal, s: SpaceState): readonly string[] {
  if (p.targets.length > 0) return p.targets;
  if (!p.toolName) return [];
  const offering = participantsOffering(s, p.toolName);
  return offering.length === 1 ? offering : [];
}

/** The request a fulfilment sends (the SDK numbers it), for asking whether my capabilities allow it. */
function fulfilment(p: Proposal, params: unknown) {
  return { jsonrpc: '2.0' as const, id: 0, method: p.method, ...(params !== undefined && { params: params as Record<string, unknown> }) };
}

/** Whether I can approve `p` (send the fulfilling request), and if not why. */
export function approveBlocker(participant: MEWParticipant, s: SpaceState, p: Proposal, params: unknown = p.params): Blocker {
  if (p.state !== 'pending') return `it is ${p.state}`;
  if (targetsOf(p, s).length === 0) return 'it names no target, and no single participant offers this tool';
  if (!participant.canSend('mcp/request', fulfilment(p, params))) return `your capabilities do not allow this ${p.method} request`;
  // Its tool needs several approvers, and my approval of this very call is counted already.
  if (JSON.stringify(params) === JSON.stringify(p.params) && hasApproved(p, s.connection.me)) {
    return `you already approved it (${p.approvals!.by.length} of ${p.approvals!.required}): ${p.approvals!.required} different people must`;
  }
  return undefined;
}

const describe = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * The approver's actions, decided through the SDK (`proposals.fulfil` / `proposals.reject`, `operate.grant` /
 * `operate.revoke`), which knows every proposal the client saw, caught-up ones included. Each outcome is a toast.
 * A decision is sent once: while the gateway has neither accepted nor refused my decision on a proposal (the SDK's
 * record of what I sent says so), a second click or key press sends nothing, so a tool never runs twice by
 * accident; once accepted, the proposal is no longer pending in the model the cards show. A gateway refusal
 * becomes one toast naming what was refused (`toastRefusal`).
 */
export function useProposalActions() {
  const { participant, store } = useSpaceSession();

  return useMemo(() => {
    const undecided = (p: Proposal) => {
      if (!participant.proposals.sentDecision(p.id)) return true;
      toast(`Already sent your decision on ${p.toolName ?? p.method} from ${p.proposer}`);
      return false;
    };
    /** My revoke of `grant` awaiting the gateway's answer, or the grant already revoked in the model. */
    const revoking = (grant: GrantState) =>
      store.getState().grants.byId.get(grant.id)?.revoked !== undefined ||
      participant.client.sent.awaitingAck((e) => e.kind === 'capability/revoke' && e.payload.grant_id === grant.id) !== undefined;

    const sendFulfilment = (p: Proposal, params: unknown) => {
      const s = store.getState();
      const blocker = approveBlocker(participant, s, p, params);
      if (blocker) throw new Error(`Cannot approve ${p.toolName ?? p.method}: ${blocker}`);
      const to = [...targetsOf(p, s)];
      const { outcome } = participant.proposals.fulfil(p.id, {
        call: { method: p.method, ...(params !== undefined && { params: params as Record<string, unknown> }) },
        to,
      });
      outcome.then(
        (result) => {
          // My approval is counted, short of the quorum: the call waits for other approvers (nothing ran).
          if (!(result instanceof ApprovalRecorded)) return;
          const who = result.approvals.map((a) => a.by).join(', ');
          toast(`Approval recorded: ${result.approvals.length} of ${result.required}`, {
            description: `${p.toolName ?? p.method} from ${p.proposer} runs once ${result.required} different people approved it (so far: ${who || 'nobody'})`,
          });
        },
        toastRefusal(`Approval of ${p.toolName ?? p.method}`),
      );
      return to;
    };

    const attempt = (run: () => void) => {
      try {
        run();
        return true;
      } catch (error) {
        toast.error(describe(error));
        return false;
      }
    };

    return {
      /** Sends the fulfilling request (with `params` when edited). */
      approve(p: Proposal, params: unknown = p.params): boolean {
        if (!undecided(p)) return false;
        return attempt(() => {
          const to = sendFulfilment(p, params);
          const edited = JSON.stringify(params) !== JSON.stringify(p.params);
          toast.success(`Approved${edited ? ' with edits' : ''} — sent to ${to.join(', ')}`, { description: `${p.toolName ?? p.method} from ${p.proposer}` });
        });
      },

      /** Approves several; one toast for all. */
      approveMany(proposals: readonly Proposal[]): boolean {
        const targets = new Set<string>();
        const failures: string[] = [];
        const ready = proposals.filter(undecided);
        for (const p of ready) {
          try {
            for (const t of sendFulfilment(p, p.params)) targets.add(t);
          } catch (error) {
            failures.push(describe(error));
          }
        }
        const done = ready.length - failures.length;
        if (done > 0) toast.success(`Approved ${done} — sent to ${[...targets].join(', ')}`);
        for (const failure of failures) toast.error(failure);
        return done > 0 && failures.length === 0;
      },

      /** `mcp/reject` to each proposer with the reason and explanation, then the explanation (if any) as a chat correlated to that reject. */
      reject(proposals: readonly Proposal[], reason: string, explanation: string): boolean {
        const ready = proposals.filter(undecided);
        if (ready.length === 0) return false;
        return attempt(() => {
          for (const p of ready) {
            const { outcome } = participant.proposals.reject(p.id, reason, explanation || undefined);
            outcome.catch(toastRefusal(`Rejection of ${p.toolName ?? p.method}`));
          }
          const one = ready.length === 1 ? ready[0] : undefined;
          const why = reasonLabel(reason);
          toast('Rejected', { description: one ? `${one.toolName ?? one.method} from ${one.proposer}: ${why}` : `${ready.length} proposals: ${why}` });
        });
      },

      /** `capability/revoke` by grant id (once: not while one is on its way, nor after the grant was revoked). */
      revoke(grant: GrantState, tools: readonly string[]): boolean {
        if (revoking(grant)) return false;
        return attempt(() => {
          const payload = { recipient: grant.recipient, grant_id: grant.id, reason: 'Revoked from the proposal queue' };
          if (!participant.operate.allows('revoke', payload)) throw new Error('Your capabilities do not allow revoking grants');
          const { accepted } = participant.operate.revoke(payload);
          accepted.catch(toastRefusal(`Revoking ${tools.join(', ')}`));
          toast(`Revoked — ${grant.recipient} must propose ${tools.join(', ')} again`);
        });
      },
    };
  }, [participant, store]);
}

export type ProposalActions = ReturnType<typeof useProposalActions>;
