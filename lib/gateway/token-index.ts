import { createHash, timingSafeEqual } from 'node:crypto';

function digest(token: string): Buffer {
  return createHash('sha256').update(token).digest();
}

/**
 * Maps bearer tokens to participant ids without keeping or comparing raw tokens: the lookup key is the
 * SHA-256 of the token, and the final check is constant-time, so response timing says nothing about a guess.
 */
export class TokenIndex {
  private readonly byDigest = new Map<string, { digest: Buffer; participantId: string }>();

  add(token: string, participantId: string): void {
    const d = digest(token);
    this.byDigest.set(d.toString('base64'), { digest: d, participantId });
  }

  /** Adds a token known only by its SHA-256 (hex): an issued one, whose value is never kept (`issuedTokens`). */
  addSha256(sha256Hex: string, participantId: string): void {
    const d = Buffer.from(sha256Hex, 'hex');
    this.byDigest.set(d.toString('base64'), { digest: d, participantId });
  }

  /** Forgets every token of a participant (kicks). */
  removeParticipant(participantId: string): void {
    for (const [key, entry] of this.byDigest) if (entry.participantId === participantId) this.byDigest.delete(key);
  }

  lookup(token: string): string | undefined {
    const d = digest(token);
    const entry = this.byDigest.get(d.toString('base64'));
    return entry && timingSafeEqual(entry.digest, d) ? entry.participantId : undefined;
  }
}
