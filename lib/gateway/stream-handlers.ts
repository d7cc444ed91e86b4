import { randomBytes } from 'node:crypto';
import { streamIdOf } from '../protocol';
import { GatewayError } from './gateway-error';
import { requireParticipant, type ManagementHandler } from './management';
import { OutboundMessage } from './outbound-message';
import type { Participant } from './participant';
import type { Space } from './space';

/** Stream ids are 128 random bits: knowing a stream exists must not let anyone guess its id. */
const STREAM_ID_BYTES = 16;

/**
 * `stream/request` is always answered by the gateway, whatever its `to`: a `stream/open` (routed to everyone, so
 * late joiners and observers know the stream) naming the owner, the writers and the optional target.
 */
export const handleStreamRequest: ManagementHandler<'stream/request'> = (space, sender, { payload }) => {
  for (const id of payload.target ?? []) requireParticipant(space, id, 'payload.target');
  for (const id of payload.authorized_writers ?? []) requireParticipant(space, id, 'payload.authorized_writers');
  return (env) => {
    const id = randomBytes(STREAM_ID_BYTES).toString('base64url');
    const writers = new Set([sender.id, ...(payload.authorized_writers ?? [])]);
    const open = space.emit(
      'stream/open',
      {
        stream_id: id,
        owner: sender.id,
        authorized_writers: [...writers],
        direction: payload.direction ?? 'upload',
        encoding: payload.encoding ?? 'text',
        ...(payload.target ? { target: payload.target } : {}),
        ...(payload.description ? { description: payload.description } : {}),
      },
      { broadcastTo: [sender.id], correlationId: [env.id] },
    );
    space.streams.add({
      id,
      owner: sender.id,
      authorizedWriters: writers,
      direction: payload.direction ?? 'upload',
      encoding: payload.encoding ?? 'text',
      target: payload.target,
      description: payload.description,
      requestId: env.id,
      openId: open.envelope!.id,
    });
    space.audit('STREAM_OPENED', {
      actor: sender.id,
      envelope_id: env.id,
      details: { stream_id: id, target: payload.target, description: payload.description },
    });
  };
};

/** `stream/close`: only the owner closes (the gateway too, elsewhere); frames after it are refused as unknown. */
export const handleStreamClose: ManagementHandler<'stream/close'> = (space, sender, envelope) => {
  const payload = envelope.payload ?? {};
  const stream = space.streams.find(payload.stream_id, envelope.correlation_id);
  if (!stream) throw new GatewayError('unknown_stream', `no open stream ${JSON.stringify(payload.stream_id ?? envelope.correlation_id ?? null)}`);
  if (stream.owner !== sender.id) {
    throw new GatewayError('unauthorized_stream_write', `only ${stream.owner}, the owner, may close stream ${stream.id}`, { stream_id: stream.id });
  }
  return (env) => {
    space.streams.delete(stream.id);
    space.audit('STREAM_CLOSED', { actor: sender.id, envelope_id: env.id, details: { stream_id: stream.id, reason: payload.reason } });
  };
};

/** Checks and routes one `#id#data` frame (never parsed beyond its id, never kept in history). */
export function routeStreamFrame(space: Space, writer: Participant, data: Buffer, binary: boolean): void {
  const id = streamIdOf(data);
  const stream = id === undefined ? undefined : space.streams.get(id);
  if (!stream) throw new GatewayError('unknown_stream', `no open stream "${id ?? ''}" (frames are "#<stream_id>#<data>")`);
  if (!stream.authorizedWriters.has(writer.id)) {
    throw new GatewayError('unauthorized_stream_write', `${writer.id} may not write to stream ${stream.id}`, { stream_id: stream.id });
  }
  space.routeStreamFrame(stream, OutboundMessage.streamFrame(data, binary));
}
