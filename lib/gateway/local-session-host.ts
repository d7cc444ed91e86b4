import type { Gateway } from './gateway';
import type { Participant } from './participant';
import type { Space } from './space';
import type { WsSessionHost } from './ws-transport';

/** The sockets of this process bound to this process's gateway: identity is decided at the upgrade. */
export function localSessions(gateway: Gateway): WsSessionHost<Space, Participant> {
  return {
    spaces: () => gateway.spaces.values(),
    resolveSpace: (id) => gateway.resolveSpace(id),
    authenticate: (space, token, attempt) => gateway.authenticate(space, token, attempt),
    connect(space, who, connection, { coalesceMs, ...options }) {
      if (!('participant' in who)) throw new TypeError('a local gateway authenticates at the upgrade');
      if (coalesceMs !== undefined) connection.coalesce(who.participant.id, coalesceMs);
      return gateway.connect(space, who.participant, connection, options);
    },
  };
}
