import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';

/** Entropy of minted tokens: 32 random bytes, base64url. */
const TOKEN_BYTES = 32;

export function mintToken(): string {
  return randomBytes(TOKEN_BYTES).toString('base64url');
}

/**
 * Tokens the gateway minted for participants whose config lists none, kept in
 * `<dataDir>/<space>/tokens.json` with mode 0600 so a restart keeps every credential valid.
 */
export class TokenStore {
  private readonly file: string;
  private tokens: Record<string, string>;

  constructor(dataDir: string, spaceId: string) {
    const dir = join(dataDir, spaceId);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    this.file = join(dir, 'tokens.json');
    try {
      this.tokens = JSON.parse(readFileSync(this.file, 'utf8')) as Record<string, string>;
    } catch {
      this.tokens = {};
    }
  }

  /** The stored token of a participant, minted and saved on first use. */
  tokenFor(participantId: string): string {
    let token = this.tokens[participantId];
    if (!token) {
      token = mintToken();
      this.tokens[participantId] = token;
      this.save();
    }
    return token;
  }

  private save(): void {
    writeFileSync(this.file, JSON.stringify(this.tokens, null, 2), { mode: 0o600 });
    chmodSync(this.file, 0o600); // writeFileSync's mode only applies when the file is created
  }
}
