import { CLOSE_CODES, PARTICIPANT_ID_PATTERN } from '../protocol';
import { GatewayError } from './gateway-error';
import { requireCovered, requireParticipant, runtimeCapabilities, type ManagementHandler } from './management';

/**
 * `space/invite`: the gateway mints a token and answers the inviter alone with `space/invite-ack` (status `created`,
 * as the reference implementation's clients check); the routed invite carries no token. A kicked participant can be
 * invited back (with a new token); anyone else present already exists, refused before anything is routed.
 */
export const handleInvite: ManagementHandler<'space/invite'> = (space, sender, { payload }) => {
  const id = payload.participant_id;
  if (!PARTICIPANT_ID_PATTERN.test(id)) {
    throw new GatewayError('invalid_envelope', `payload.participant_id "${id}" is not a valid id: 1-64 letters, digits, . _ : @ - (not "." or "..")`, {
      issues: [{ path: ['payload', 'participant_id'], message: 'invalid participant id' }],
    });
  }
  if (space.participants.has(id) && !space.state.kicked.includes(id)) {
    throw new GatewayError('already_exists', `participant "${id}" already exists in this space`);
  }
  const capabilities = runtimeCapabilities(payload.initial_capabilities ?? [], ['payload', 'initial_capabilities']);
  requireCovered(sender, capabilities, 'this invite');
  return (env) => {
    let token = '';
    // The token and the invite are one transaction: neither exists without the other.
    space.commit(
      (d, tokens) => {
        token = tokens.mint(id);
        d.invited = d.invited.filter((p) => p.id !== id);
        d.invited.push({ id, capabilities, invitedBy: sender.id, ts: env.ts, reason: payload.reason });
        d.kicked = d.kicked.filter((k) => k !== id);
      },
      () => ({ type: 'PARTICIPANT_INVITED', actor: sender.id, subject: id, envelope_id: env.id, details: { capabilities, reason: payload.reason } }),
    );
    space.addParticipant(id, capabilities, 'broadcast', [token], sender.id);
    space.emit(
      'space/invite-ack',
      { status: 'created', participant_id: id, token, connection_url: space.services.connectionUrl() },
      { to: [sender.id], correlationId: [env.id] },
    );
  };
};

/** `space/kick`: the target's tokens stop working, all its connections close with 4403, presence `leave` is broadcast. */
export const handleKick: ManagementHandler<'space/kick'> = (space, sender, { payload }) => {
  const target = requireParticipant(space, payload.participant_id, 'payload.participant_id');
  return (env) => {
    space.commit(
      (d, tokens) => {
        if (!d.kicked.includes(target.id)) d.kicked.push(target.id);
        delete d.paused[target.id];
        tokens.remove(target.id);
      },
      () => ({ type: 'PARTICIPANT_KICKED', actor: sender.id, subject: target.id, envelope_id: env.id, details: { reason: payload.reason } }),
    );
    space.tokens.removeParticipant(target.id);
    target.paused = undefined;
    for (const stream of space.streams.ownedBy(target.id)) space.closeStream(stream, 'owner_kicked');
    // Every tab and device of it: a kick leaves none connected.
    const close = { code: CLOSE_CODES.kicked, reason: `kicked by ${sender.id}${payload.reason ? `: ${payload.reason}` : ''}`.slice(0, 120) };
    for (const { connection } of target.links) {
      connection.close(close.code, close.reason);
      space.detach(target, connection, close);
    }
  };
};
