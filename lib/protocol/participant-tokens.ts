import { z } from 'zod';

// Issuing a participant one more token: `POST /api/spaces/{space}/participants/{id}/tokens` (operators and the admin
// token), e.g. for an MCP client that joins as that participant (`/mcp/{space}`). The token is in the answer only.

/** Characters a token's label may have. */
export const TOKEN_LABEL_MAX = 64;

/** What an operator may post (the body may also be empty). */
export const issueTokenInputSchema = z.strictObject({
  /** What it is for (`Claude Code on my laptop`): kept with it and in the audit log, never secret. */
  label: z.string().trim().min(1).max(TOKEN_LABEL_MAX).optional(),
});
export type IssueTokenInput = z.infer<typeof issueTokenInputSchema>;

/** The body of the answer (201): the token, shown this once (the gateway keeps only its SHA-256). */
export interface IssuedParticipantToken {
  participant: string;
  token: string;
  /** Names the token in the audit log (`TOKEN_ISSUED`'s `details.token_id`) without revealing it. */
  token_id: string;
  label?: string;
  /** When it was issued (ISO 8601). */
  issued_at: string;
}

/** The path of the endpoint, relative to `/api/spaces/{space}` (what the control room's `spaceApi` takes). */
export function participantTokensPath(participant: string): string {
  return `/participants/${encodeURIComponent(participant)}/tokens`;
}
