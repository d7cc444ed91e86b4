import { GATEWAY_ID, type Envelope, type Kind } from '../protocol';
import type { OutgoingEnvelope, SentEnvelope } from './mew-client';
import { observed } from './observed';
import type { AcknowledgedOperation, OperateArgs, OperateOptions, Operation, OperatorAction, ParticipantOperate } from './participant-namespaces';
import type { AwaitOptions } from './sent-envelopes';
import { OPERATION_TIMEOUT_MS } from './sdk-defaults';

/** What the `operate` namespace needs of its participant. */
export interface OperateHost {
  send(envelope: OutgoingEnvelope): SentEnvelope;
  awaitReply<K extends Kind>(envelopeId: string, options: AwaitOptions<K>): Promise<Envelope<K>>;
  canSend(kind: string, payload?: unknown): boolean;
}

/**
 * The envelope of each operator action, from the method's own arguments: the one place operator envelopes are built,
 * for sending them and for `allows` alike. `to` names who must act on it: the target (a grant's or revoke's
 * recipient, the participant kicked); an invite names nobody, since the gateway acts and answers the inviter alone.
 */
export const OPERATOR_ENVELOPES = {
  grant: (payload) => ({ kind: 'capability/grant', to: [payload.recipient], payload }),
  revoke: (payload) => ({ kind: 'capability/revoke', to: [payload.recipient], payload }),
  invite: (payload) => ({ kind: 'space/invite', payload }),
  kick: (payload) => ({ kind: 'space/kick', to: [payload.participant_id], payload }),
  pause: (target, payload = {}) => ({ kind: 'participant/pause', to: [target], payload }),
  // Spec §3.9.2: a resume's `correlation_id` SHOULD reference the pause it lifts.
  resume: (target, options = {}) => ({
    kind: 'participant/resume',
    to: [target],
    ...(options.pauseId !== undefined && { correlation_id: [options.pauseId] }),
    payload: {},
  }),
  requestStatus: (target, payload = {}) => ({ kind: 'participant/request-status', to: [target], payload }),
  forget: (target, payload) => ({ kind: 'participant/forget', to: [target], payload }),
  compact: (target, payload = {}) => ({ kind: 'participant/compact', to: [target], payload }),
  clear: (target, payload = {}) => ({ kind: 'participant/clear', to: [target], payload }),
  restart: (target, payload = {}) => ({ kind: 'participant/restart', to: [target], payload }),
  shutdown: (target, payload = {}) => ({ kind: 'participant/shutdown', to: [target], payload }),
  // Spec §3.5.5: `context` MUST reference the `reasoning/start`.
  cancelReasoning: (owner, reasoningId, payload = {}) => ({
    kind: 'reasoning/cancel',
    to: [owner],
    context: reasoningId,
    correlation_id: [reasoningId],
    payload,
  }),
} satisfies { [A in OperatorAction]: (...args: OperateArgs<A>) => OutgoingEnvelope };

/**
 * Builds a participant's `operate` namespace: each action sends its envelope through `host.send` (so a pause of mine
 * refuses it at once) and awaits the gateway's verdict through `host.awaitReply`, on the envelope's one record of
 * what became of it (the client's `sent`).
 */
export function createOperate(host: OperateHost): ParticipantOperate {
  const start = <K extends Kind>(envelope: OutgoingEnvelope & { kind: K }, options: OperateOptions = {}): Operation<K> => {
    const sent = host.send(envelope);
    const accepted = host.awaitReply(sent.id, { replyKinds: [], timeoutMs: options.timeoutMs ?? OPERATION_TIMEOUT_MS });
    return { envelope: sent, accepted: observed(accepted as Promise<Envelope<K>>) };
  };
  /** An operation and its ack: the first of `ackKind` correlated to it, from `from` only (nobody else can forge it). */
  const acknowledged = <K extends Kind, A extends Kind>(
    envelope: OutgoingEnvelope & { kind: K },
    ackKind: A,
    from: string,
    options: OperateOptions = {},
  ): AcknowledgedOperation<K, A> => {
    const operation = start<K>(envelope, options);
    const ack = host.awaitReply(operation.envelope.id, { replyKinds: [ackKind], from: [from], timeoutMs: options.timeoutMs ?? OPERATION_TIMEOUT_MS });
    return { ...operation, ack: observed(ack) };
  };

  return {
    allows: (action, ...args) => {
      const envelope = (OPERATOR_ENVELOPES[action] as (...args: unknown[]) => OutgoingEnvelope)(...args);
      return host.canSend(envelope.kind, envelope.payload);
    },
    grant: (payload, options) => acknowledged(OPERATOR_ENVELOPES.grant(payload), 'capability/grant-ack', payload.recipient, options),
    revoke: (payload, options) => start(OPERATOR_ENVELOPES.revoke(payload), options),
    invite: (payload, options) => acknowledged(OPERATOR_ENVELOPES.invite(payload), 'space/invite-ack', GATEWAY_ID, options),
    kick: (payload, options) => start(OPERATOR_ENVELOPES.kick(payload), options),
    pause: (target, payload, options) => start(OPERATOR_ENVELOPES.pause(target, payload), options),
    resume: (target, options) => start(OPERATOR_ENVELOPES.resume(target, options), options),
    requestStatus: (target, payload, options) => start(OPERATOR_ENVELOPES.requestStatus(target, payload), options),
    forget: (target, payload, options) => start(OPERATOR_ENVELOPES.forget(target, payload), options),
    compact: (target, payload, options) => start(OPERATOR_ENVELOPES.compact(target, payload), options),
    clear: (target, payload, options) => start(OPERATOR_ENVELOPES.clear(target, payload), options),
    restart: (target, payload, options) => start(OPERATOR_ENVELOPES.restart(target, payload), options),
    shutdown: (target, payload, options) => start(OPERATOR_ENVELOPES.shutdown(target, payload), options),
    cancelReasoning: (owner, reasoningId, payload, options) => start(OPERATOR_ENVELOPES.cancelReasoning(owner, reasoningId, payload), options),
  };
}
