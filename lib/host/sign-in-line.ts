import type { Space } from '../gateway/space';

/**
 * How the person who started a server signs in to a space, when its config names who (`sign_in_as`): like a
 * notebook server, the one place a token is printed. It travels in the URL fragment, which browsers never send.
 */
export function signInLine(base: string, space: Pick<Space, 'id' | 'signIn'>): string | undefined {
  return space.signIn && `  sign in as ${space.signIn.participantId}: http://${base}/spaces/${encodeURIComponent(space.id)}#token=${space.signIn.token}`;
}
