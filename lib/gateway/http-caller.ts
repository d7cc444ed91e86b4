import type { IncomingMessage } from 'node:http';
import { covers } from '../capabilities';
import type { Gateway } from './gateway';
import { GatewayError } from './gateway-error';
import { bearer } from './http-util';
import type { Participant } from './participant';
import type { Space } from './space';

/** Who calls a space's HTTP endpoint: the admin token, or a participant by its own token. */
export interface HttpCaller {
  /** `admin`, or the participant's id: the actor of what the call changes. */
  id: string;
  participant?: Participant;
  /**
   * The admin token, or a participant whose capabilities cover an unrestricted `capability/grant`: who may hand out
   * any capability may see and steer what is done with them (audit log, approval rules, budgets).
   */
  operator: boolean;
}

/** The caller of a request, or undefined without a token that authenticates (an unknown one is audited and told to operators). */
export function httpCaller(gateway: Gateway, space: Space, req: IncomingMessage): HttpCaller | undefined {
  const token = bearer(req);
  if (token === undefined) return undefined;
  if (gateway.isAdmin(space, token)) return { id: 'admin', operator: true };
  const participant = gateway.authenticate(space, token, { via: 'http', address: req.socket.remoteAddress });
  return participant && { id: participant.id, participant, operator: covers(participant.capabilities, { kind: 'capability/grant' }) };
}

/** Any member of the space, or the admin; else 401 `invalid_token`. */
export function requireCaller(gateway: Gateway, space: Space, req: IncomingMessage): HttpCaller {
  const caller = httpCaller(gateway, space, req);
  if (!caller) throw new GatewayError('invalid_token', bearer(req) ? 'unknown or revoked token' : 'missing Authorization: Bearer token');
  return caller;
}

/** An operator; anyone else is 401 `invalid_token` (`what` names the endpoint in the message). */
export function requireOperator(gateway: Gateway, space: Space, req: IncomingMessage, what: string): HttpCaller {
  const caller = httpCaller(gateway, space, req);
  if (!caller?.operator) throw new GatewayError('invalid_token', `${what} needs the admin token or an operator’s token (unrestricted capability/grant)`);
  return caller;
}
