'use client';

import { useEffect, useMemo, useRef } from 'react';
import { toast } from 'sonner';
import { useSpaceSession } from '@/components/session/space-session';
import type { SentEnvelope } from '@/lib/sdk/mew-client';
import type { MEWParticipant } from '@/lib/sdk/mew-participant';
import type { GrantState, Proposal, SpaceState } from '@/lib/store';
import { participantsOffering } from './store-access';

/** Why an action is not possible now, or undefined when it is. */
export type Blocker = string | undefined;

const TRACKED_CAP = 500;

/** Every tool risk that calls for the extra confirmation step on a plain Approve. */
export function needsConfirmation(p: Proposal): boolean {
  return p.risk?.confirmation_required === true || p.risk?.risk_level === 'dangerous';
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

function fulfilment(p: Proposal, params: unknown) {
  return {
    jsonrpc: '2.0' as const,
    id: globalThis.crypto.randomUUID(), // fresh: the proposal carries none, and numbers could clash with my SDK's own
    method: p.method,
    ...(params !== undefined && { params: params as Record<string, unknown> }),
  };
}

function grantPayload(p: Proposal) {
  return {
    recipient: p.proposer,
    capabilities: [{ kind: 'mcp/request', payload: { method: 'tools/call', params: { name: p.toolName! } } }],
    reason: `Always allow ${p.toolName} (approved proposal ${p.id})`,
  };
}

/** Whether I can approve `p` (send the fulfilling request), and if not why. */
export function approveBlocker(participant: MEWParticipant, s: SpaceState, p: Proposal, params: unknown = p.params): Blocker {
  if (p.state !== 'pending') return `it is ${p.state}`;
  if (targetsOf(p, s).length === 0) return 'it names no target, and no single participant offers this tool';
  if (!participant.canSend('mcp/request', fulfilment(p, params))) return `your capabilities do not allow this ${p.method} request`;
  return undefined;
}

/** Whether I can "always allow" `p`'s tool for its proposer, and if not why. */
export function grantBlocker(participant: MEWParticipant, s: SpaceState, p: Proposal): Blocker {
  if (p.method !== 'tools/call' || !p.toolName) return 'only tool calls can be always allowed';
  if (p.proposer === s.connection.me) return 'it is your own proposal';
  if (!participant.canSend('capability/grant', grantPayload(p))) return 'your capabilities do not allow granting this';
  return approveBlocker(participant, s, p);
}

const describe = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** Something this panel sent: what to call it in an error toast, and which decisions it carried. */
interface Sent {
  what: string;
  /** Proposals it decided (a refusal makes them decidable again). */
  decides: readonly string[];
  /** Grants it revoked. */
  revokes: readonly string[];
}

/**
 * The approver's actions, as envelopes sent straight through the participant (not the SDK's fulfilProposal /
 * rejectProposal: those only know proposals seen live, and the queue also holds ones caught up from history).
 * Each outcome is a toast. A decision is sent once: until the gateway refuses it, a second click or key press on
 * the same proposal (before its echo moves it out of `pending`) sends nothing, so a tool never runs twice by accident.
 * A gateway `system/error` about something sent here becomes a toast naming it (same toast id as the page-wide
 * error toasts, so it is one toast, not two).
 */
export function useProposalActions() {
  const { participant, store } = useSpaceSession();
  const sent = useRef(new Map<string, Sent>());
  const decided = useRef(new Set<string>());
  const revoked = useRef(new Set<string>());

  useEffect(
    () =>
      // A store listener sees each error as it is ingested, whoever empties the toast queue afterwards.
      store.subscribe((state, prev) => {
        if (state.errors.lastSeq === prev.errors.lastSeq) return;
        for (const notice of state.errors.queue) {
          if (notice.seq <= prev.errors.lastSeq) continue;
          const refused = notice.correlationIds.map((id) => sent.current.get(id)).find(Boolean);
          if (!refused) continue;
          for (const id of refused.decides) decided.current.delete(id);
          for (const id of refused.revokes) revoked.current.delete(id);
          toast.error(`${refused.what} refused by the gateway: ${notice.error}`, { id: notice.id, description: notice.message });
        }
      }),
    [store],
  );

  return useMemo(() => {
    const remember = <T,>(set: Set<T>, value: T) => {
      set.add(value);
      if (set.size > TRACKED_CAP) set.delete(set.values().next().value as T);
    };
    const track = (envelope: SentEnvelope, what: string, decides: readonly string[] = [], revokes: readonly string[] = []) => {
      sent.current.set(envelope.id, { what, decides, revokes });
      if (sent.current.size > TRACKED_CAP) sent.current.delete(sent.current.keys().next().value as string);
      for (const id of decides) remember(decided.current, id);
      for (const id of revokes) remember(revoked.current, id);
      return envelope;
    };
    const undecided = (p: Proposal) => {
      if (!decided.current.has(p.id)) return true;
      toast(`Already sent your decision on ${p.toolName ?? p.method} from ${p.proposer}`);
      return false;
    };

    const sendFulfilment = (p: Proposal, params: unknown) => {
      const s = store.getState();
      const blocker = approveBlocker(participant, s, p, params);
      if (blocker) throw new Error(`Cannot approve ${p.toolName ?? p.method}: ${blocker}`);
      const to = [...targetsOf(p, s)];
      const envelope = participant.send({ kind: 'mcp/request', to, correlation_id: [p.id], payload: fulfilment(p, params) });
      track(envelope, `Approval of ${p.toolName ?? p.method}`, [p.id]);
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

      /** `mcp/reject` to each proposer, then the explanation (if any) as a chat correlated to that reject. */
      reject(proposals: readonly Proposal[], reason: string, explanation: string): boolean {
        const ready = proposals.filter(undecided);
        if (ready.length === 0) return false;
        return attempt(() => {
          for (const p of ready) {
            const rejection = track(
              participant.send({ kind: 'mcp/reject', to: [p.proposer], correlation_id: [p.id], payload: { reason } }),
              `Rejection of ${p.toolName ?? p.method}`,
              [p.id],
            );
            if (explanation) track(participant.chat(explanation, p.proposer, { correlationId: [rejection.id] }), 'The rejection’s explanation');
          }
          const one = ready.length === 1 ? ready[0] : undefined;
          toast('Rejected', { description: one ? `${one.toolName ?? one.method} from ${one.proposer}: ${reason}` : `${ready.length} proposals: ${reason}` });
        });
      },

      /** Grants the proposer this tool (`capability/grant`), then approves this call. */
      alwaysAllow(p: Proposal): boolean {
        if (!undecided(p)) return false;
        return attempt(() => {
          const blocker = grantBlocker(participant, store.getState(), p);
          if (blocker) throw new Error(`Cannot always allow ${p.toolName ?? p.method}: ${blocker}`);
          track(participant.send({ kind: 'capability/grant', to: [p.proposer], payload: grantPayload(p) }), `Always allowing ${p.toolName}`);
          const to = sendFulfilment(p, p.params);
          toast.success(`Approved — sent to ${to.join(', ')}`, { description: `${p.proposer} may now call ${p.toolName} directly` });
        });
      },

      /** `capability/revoke` by grant id (once, until the gateway refuses it). */
      revoke(grant: GrantState, tools: readonly string[]): boolean {
        if (revoked.current.has(grant.id)) return false;
        return attempt(() => {
          const payload = { recipient: grant.recipient, grant_id: grant.id, reason: 'Revoked from the proposal queue' };
          if (!participant.canSend('capability/revoke', payload)) throw new Error('Your capabilities do not allow revoking grants');
          track(participant.send({ kind: 'capability/revoke', to: [grant.recipient], payload }), `Revoking ${tools.join(', ')}`, [], [grant.id]);
          toast(`Revoked — ${grant.recipient} must propose ${tools.join(', ')} again`);
        });
      },
    };
  }, [participant, store]);
}

export type ProposalActions = ReturnType<typeof useProposalActions>;
