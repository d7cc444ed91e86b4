import { CapabilityError, containsRegex, covers, normalizeCapability, type CapabilityPattern } from '../capabilities';
import type { Envelope, InboundEnvelope, Kind } from '../protocol';
import { GatewayError } from './gateway-error';
import type { Participant } from './participant';
import type { Space } from './space';

/**
 * A kind the gateway acts on besides routing it (grants, invites, controls, streams). `prepare` runs after
 * enforcement and before routing; it validates everything and throws GatewayError without touching state,
 * then returns `apply`, which runs once the envelope (with its final id) has been routed. So a refused
 * management envelope changes nothing, and an accepted one is seen before its consequences.
 */
export type ManagementHandler<K extends Kind = Kind> = (
  space: Space,
  sender: Participant,
  envelope: InboundEnvelope<K>,
) => ((envelope: Envelope<K>) => void) | undefined;

/** Each kind's handler sees that kind's typed payload. */
export type ManagementHandlers = { [K in Kind]?: ManagementHandler<K> };

/** The participant a management payload names, or `unknown_participant`. */
export function requireParticipant(space: Space, id: unknown, field: string): Participant {
  const participant = typeof id === 'string' ? space.participants.get(id) : undefined;
  if (!participant) throw new GatewayError('unknown_participant', `${field} names no participant of this space: ${JSON.stringify(id)}`);
  return participant;
}

/**
 * Normalises capabilities given at run time (grants, invites, admin). Regexes are refused: one written to
 * backtrack would run on every message of its holder, so only the space config may use them.
 */
export function runtimeCapabilities(list: unknown, path: (string | number)[]): CapabilityPattern[] {
  if (!Array.isArray(list)) throw new GatewayError('invalid_envelope', `${path.join('.')} must be an array of capabilities`);
  return list.map((input, i) => {
    let pattern: CapabilityPattern;
    try {
      pattern = normalizeCapability(input);
    } catch (e) {
      if (!(e instanceof CapabilityError)) throw e;
      throw new GatewayError('invalid_envelope', `${[...path, i, ...e.path].join('.')}: ${e.message}`, {
        issues: [{ path: [...path, i, ...e.path], message: e.message }],
      });
    }
    if (containsRegex(pattern)) {
      throw new GatewayError('invalid_envelope', `${[...path, i].join('.')}: regular expressions are only allowed in the space config`);
    }
    return pattern;
  });
}

/** "Can't grant what you don't hold": every capability must be covered by one the sender holds. */
export function requireCovered(sender: Participant, wanted: CapabilityPattern[], what: string): void {
  const notHeld = wanted.filter((c) => !covers(sender.capabilities, c));
  if (notHeld.length > 0) {
    throw new GatewayError('grant_exceeds_own_capabilities', `${what} gives capabilities you do not hold`, { not_held: notHeld });
  }
}
