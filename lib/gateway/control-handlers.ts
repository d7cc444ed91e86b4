import type { InboundEnvelope } from '../protocol';
import { GatewayError } from './gateway-error';
import { requireParticipant, type ManagementHandler } from './management';
import type { Participant } from './participant';
import type { SpaceStateData } from './persistence/space-records';
import type { AuditEntry, Space } from './space';

/** Controls act on the participants named in `to`; a control with no addressee would be ambiguous. */
function targets(space: Space, envelope: InboundEnvelope): Participant[] {
  if (!envelope.to?.length) {
    throw new GatewayError('invalid_envelope', `${envelope.kind} must name its target participant(s) in "to"`, {
      issues: [{ path: ['to'], message: 'required for participant controls' }],
    });
  }
  return envelope.to.map((id) => requireParticipant(space, id, 'to'));
}

/** Controls the gateway only validates and routes: the target acts on them itself. */
export const handleRoutedControl: ManagementHandler = (space, _sender, envelope) => {
  targets(space, envelope);
  return undefined;
};

/**
 * `participant/pause`: the gateway refuses the targets' non-exempt envelopes until `participant/resume`, the
 * `timeout_seconds` lapse, or forever without one. A reconnect does not lift it (else pausing would be a
 * suggestion). The targets still receive the pause, so a cooperative participant can stop by itself.
 */
export const handlePause: ManagementHandler<'participant/pause'> = (space, sender, envelope) => {
  const list = targets(space, envelope);
  const { timeout_seconds: timeout, reason } = envelope.payload ?? {};
  return (env) => pauseParticipants(space, sender.id, list, env.id, { timeout, reason });
};

/**
 * Pauses `list` as `by` says in the routed `participant/pause` envelope `envelopeId`: persisted and audited in one
 * transaction, with whatever else `also` changes and records (a budget's alert), then enforced. The gateway's own
 * pauses (budgets) come through here too, so they are the same pause in every respect.
 */
export function pauseParticipants(
  space: Space,
  by: string,
  list: Participant[],
  envelopeId: string,
  { timeout, reason }: { timeout?: number; reason?: string },
  also?: { change(data: SpaceStateData): void; audit(): AuditEntry[] },
): void {
  const until = timeout !== undefined ? Date.now() + timeout * 1000 : undefined;
  const pause = { by, envelopeId, ...(until !== undefined ? { until } : {}), ...(reason !== undefined ? { reason } : {}) };
  space.commit(
    (d) => {
      for (const target of list) d.paused[target.id] = pause;
      also?.change(d);
    },
    () => [
      ...list.map((target) => ({
        type: 'PARTICIPANT_PAUSED',
        actor: by,
        subject: target.id,
        envelope_id: envelopeId,
        details: { timeout_seconds: timeout, reason },
      })),
      ...(also?.audit() ?? []),
    ],
  );
  for (const target of list) {
    target.paused = pause;
    space.expirePauseLater(target, pause);
  }
}

export const handleResume: ManagementHandler<'participant/resume'> = (space, sender, envelope) => {
  const list = targets(space, envelope);
  return (env) => {
    space.commit(
      (d) => {
        for (const target of list) delete d.paused[target.id];
      },
      () => list.map((target) => ({ type: 'PARTICIPANT_RESUMED', actor: sender.id, subject: target.id, envelope_id: env.id })),
    );
    for (const target of list) target.paused = undefined;
  };
};

/** `participant/shutdown`: refused outbound traffic (but the exempt kinds) until the target joins again; its streams close. */
export const handleShutdown: ManagementHandler<'participant/shutdown'> = (space, sender, envelope) => {
  const list = targets(space, envelope);
  return (env) => {
    for (const target of list) {
      target.shutdown = { by: sender.id, envelopeId: env.id };
      for (const stream of space.streams.ownedBy(target.id)) space.closeStream(stream, 'owner_shutdown');
      space.audit('PARTICIPANT_SHUTDOWN', { actor: sender.id, subject: target.id, envelope_id: env.id });
    }
  };
};
