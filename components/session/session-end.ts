import { CLOSE_CODES } from '@/lib/protocol';

/** Why a space's session ended for good (the SDK's client does not reconnect after these). */
export type SessionEndKind = 'refused' | 'kicked' | 'unknown_space' | 'replaced' | 'unreachable';

export interface SessionEnd {
  kind: SessionEndKind;
  /** One line for the person: what happened. */
  title: string;
  /** What to do about it, and the gateway's own words when it gave any. */
  detail: string;
  /** Whether the token is dead (refused, or revoked by a kick): a browser must not keep it. */
  tokenDead: boolean;
}

/**
 * The end of a session in words, from the final close the client reports (`client.lastClose`): a refused token
 * (4401), a kick (4403, its tokens revoked), an unknown space (4404), a newer connection (4409), or the reconnect
 * attempts running out.
 */
export function describeSessionEnd(space: string, close: { code: number; reason: string } | undefined): SessionEnd {
  const said = close?.reason ? ` (the gateway said: ${close.reason})` : '';
  switch (close?.code) {
    case CLOSE_CODES.unauthorized:
      return {
        kind: 'refused',
        title: `The gateway refused this token for ${space}`,
        detail: `It is unknown or was revoked${said}. Check it and sign in again.`,
        tokenDead: true,
      };
    case CLOSE_CODES.kicked:
      return {
        kind: 'kicked',
        title: `You were removed from ${space}`,
        detail: `An operator kicked this participant and revoked its tokens${said}. Sign in with another token.`,
        tokenDead: true,
      };
    case CLOSE_CODES.unknown_space:
      return { kind: 'unknown_space', title: `This gateway has no space named ${space}`, detail: `Check the space's name${said}.`, tokenDead: false };
    case CLOSE_CODES.replaced:
      return {
        kind: 'replaced',
        title: 'A newer connection replaced this one',
        detail: `The same participant connected elsewhere and asked to be the only one${said}.`,
        tokenDead: false,
      };
    default:
      return {
        kind: 'unreachable',
        title: 'The gateway could not be reached',
        detail: `Reconnecting was given up${close?.reason ? `: ${close.reason}` : ''}. Try again when it is back.`,
        tokenDead: false,
      };
  }
}
