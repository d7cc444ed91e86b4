/**
 * Where this browser keeps the token of each space it signed in to: localStorage, so every tab and the home page's
 * inbox see the same sign-ins, until "Sign out" forgets one. Tokens never leave the browser but for the gateway.
 */
const TOKEN_KEY_PREFIX = 'mew.token.';

/**
 * The token for `space`: taken from a `#token=` fragment (the URL the server prints) and then removed from the
 * address bar so it is neither bookmarked nor shared, or else the one this browser stored earlier.
 */
export function takeToken(space: string): string | undefined {
  const hash = new URLSearchParams(window.location.hash.slice(1));
  const fromUrl = hash.get('token');
  if (fromUrl) {
    rememberToken(space, fromUrl);
    window.history.replaceState(null, '', window.location.pathname + window.location.search);
    return fromUrl;
  }
  return window.localStorage.getItem(TOKEN_KEY_PREFIX + space) ?? undefined;
}

export function rememberToken(space: string, token: string): void {
  window.localStorage.setItem(TOKEN_KEY_PREFIX + space, token);
}

export function forgetToken(space: string): void {
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
