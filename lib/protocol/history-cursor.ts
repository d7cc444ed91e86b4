/**
 * Catch-up by cursor (our gateway): every envelope the gateway delivers carries a `cursor`, opaque to clients,
 * and a client that reconnects with `?after=<the last cursor it saw>` receives what it missed before its welcome.
 * `HISTORY_START_CURSOR` asks for everything the gateway retained.
 */
export const HISTORY_START_CURSOR = '0';

/** The upgrade URL's (and `GET /participants/{id}/messages`') query parameter carrying the cursor. */
export const AFTER_CURSOR_PARAM = 'after';
