/** Where a tab keeps the token of each space it signed in to: sessionStorage, so it dies with the tab. */
const TOKEN_KEY_PREFIX = 'mew.token.';

/**
 * The token for `space`: taken from a `#token=` fragment (the URL the server prints) and then removed from the
 * address bar so it is neither bookmarked nor shared, or else the one this tab stored earlier.
 */
export function takeToken(space: string): string | undefined {
  const hash = new URLSearchParams(window.location.hash.slice(1));
  const fromUrl = hash.get('token');
  if (fromUrl) {
    rememberToken(space, fromUrl);
    window.history.replaceState(null, '', window.location.pathname + window.location.search);
    return fromUrl;
  }
  return window.sessionStorage.getItem(TOKEN_KEY_PREFIX + space) ?? undefined;
}

export function rememberToken(space: string, token: string): void {
  window.sessionStorage.setItem(TOKEN_KEY_PREFIX + space, token);
}

export function forgetToken(space: string): void {
  window.sessionStorage.removeItem(TOKEN_KEY_PREFIX + space);
}
