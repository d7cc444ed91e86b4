import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';

/** How long a notification's Approve / Reject link works: long enough to reach for the phone, short enough to go stale. */
export const ACTION_TOKEN_TTL_MS = 15 * 60_000;
/** Random bytes of a token's id (what "already used" remembers). */
const TOKEN_ID_BYTES = 16;
/** Domain separation: this key signs nothing else, and a later format gets another prefix. */
const SIGNING_PREFIX = 'mew.action.v1.';
/** Longest token looked at; real ones are a few hundred characters. */
const MAX_TOKEN_CHARS = 2048;

export type ProposalAction = 'approve' | 'reject';

/** What a token is bound to. */
export interface ActionClaims {
  /** Token id, random: single use is remembered by it. */
  jti: string;
  space: string;
  proposal: string;
  /** The participant the notification was sent to: the action is carried out as it. */
  participant: string;
  action: ProposalAction;
  /** `proposalContentHash` of the proposal when the token was issued. */
  hash: string;
  /** Expiry, epoch ms. */
  exp: number;
}

const claimsSchema = z.strictObject({
  jti: z.string(),
  space: z.string(),
  proposal: z.string(),
  participant: z.string(),
  action: z.enum(['approve', 'reject']),
  hash: z.string(),
  exp: z.number(),
});

/**
 * Signed, short-lived tokens for acting on a proposal from a notification: `<claims>.<HMAC-SHA256>`, both base64url.
 * The server signs them with a key of its own, so nobody else can make one and any change breaks the signature.
 */
export class ActionTokens {
  constructor(private readonly key: Buffer) {}

  issue(claims: Omit<ActionClaims, 'jti' | 'exp'>, now: number): string {
    const full: ActionClaims = { jti: randomBytes(TOKEN_ID_BYTES).toString('base64url'), ...claims, exp: now + ACTION_TOKEN_TTL_MS };
    const body = Buffer.from(JSON.stringify(full)).toString('base64url');
    return `${body}.${this.sign(body)}`;
  }

  /** The claims of a token this server signed, or undefined for anything else (malformed, altered, another key's). */
  verify(token: string): ActionClaims | undefined {
    if (token.length > MAX_TOKEN_CHARS) return undefined;
    const [body, signature, ...rest] = token.split('.');
    if (!body || !signature || rest.length > 0) return undefined;
    const expected = Buffer.from(this.sign(body), 'base64url');
    const given = Buffer.from(signature, 'base64url');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
    try {
      const parsed = claimsSchema.safeParse(JSON.parse(Buffer.from(body, 'base64url').toString('utf8')));
      return parsed.success ? parsed.data : undefined;
    } catch {
      return undefined;
    }
  }

  private sign(body: string): string {
    return createHmac('sha256', this.key)
      .update(SIGNING_PREFIX + body)
      .digest('base64url');
  }
}
