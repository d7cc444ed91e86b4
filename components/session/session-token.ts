/**
 * Where this browser keeps the token of each space it signed in to: localStorage, so every tab and the home page's
 * inbox see the same sign-ins, until "Sign out" forgets one. Only a token the gateway accepted is kept: a new one
 * (from the printed URL or the sign-in form) is tried first and kept once it is welcomed, so a mistyped token never
 * replaces a sign-in that works. Tokens never leave the browser but for the gateway.
 */
const TOKEN_KEY_PREFIX = 'mew.token.';
/** A token the sign-in form hands to the space's page (this tab only, read once): never in the URL. */
const NEW_SIGN_IN_PREFIX = 'mew.sign-in.';

/**
 * A token to try for `space`, not kept yet: from a `#token=` fragment (the URL the server prints), removed from the
 * address bar so it is neither bookmarked nor shared, or handed over by the sign-in form. Read once.
 */
export function takeNewSignIn(space: string): string | undefined {
  const hash = new URLSearchParams(window.location.hash.slice(1));
  const fromUrl = hash.get('token');
  if (fromUrl) {
    window.history.replaceState(null, '', window.location.pathname + window.location.search);
    return fromUrl;
  }
  const key = NEW_SIGN_IN_PREFIX + space;
  const handed = window.sessionStorage.getItem(key) ?? undefined;
  window.sessionStorage.removeItem(key);
  return handed;
}

/** Hands a token to `space`'s page, which tries it (and keeps it only once the gateway welcomes it). */
export function handOverSignIn(space: string, token: string): void {
  window.sessionStorage.setItem(NEW_SIGN_IN_PREFIX + space, token);
}

/** The sign-in this browser keeps for `space` (one the gateway accepted), if any. */
export function savedToken(space: string): string | undefined {
  return window.localStorage.getItem(TOKEN_KEY_PREFIX + space) ?? undefined;
}

/** Keeps a token the gateway has just welcomed: never call it with one that was not. */
export function rememberToken(space: string, token: string): void {
  window.localStorage.setItem(TOKEN_KEY_PREFIX + space, token);
}

/** Forgets the sign-in kept for `space`; with `onlyIf`, only while it is that token (not a newer one another tab kept). */
export function forgetToken(space: string, onlyIf?: string): void {
  if (onlyIf !== undefined && savedToken(space) !== onlyIf) return;
  window.localStorage.removeItem(TOKEN_KEY_PREFIX + space);
}

/** Every space this browser holds a sign-in for, by name. */
export function signedInSpaces(): { space: string; token: string }[] {
  const out: { space: string; token: string }[] = [];
  for (let i = 0; i < window.localStorage.length; i++) {
    const key = window.localStorage.key(i);
    const token = key?.startsWith(TOKEN_KEY_PREFIX) ? window.localStorage.getItem(key) : null;
    if (key && token) out.push({ space: key.slice(TOKEN_KEY_PREFIX.length), token });
  }
  return out.sort((a, b) => a.space.localeCompare(b.space));
}
