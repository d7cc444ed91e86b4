import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';

/** Entropy of minted tokens: 32 random bytes, base64url. */
const TOKEN_BYTES = 32;

export function mintToken(): string {
  return randomBytes(TOKEN_BYTES).toString('base64url');
}

interface StoredTokens {
  participants: Record<string, string>;
  admin?: string;
}

/**
 * Tokens the gateway minted — for participants whose config lists none, for invitees, and the admin token
 * when the config names none — kept in `<dataDir>/<space>/tokens.json` with mode 0600 so a restart keeps
 * every credential valid. Without a data directory they live in memory only (tests).
 */
export class TokenStore {
  private readonly file?: string;
  private tokens: StoredTokens;

  constructor(dataDir: string | undefined, spaceId: string) {
    this.tokens = { participants: {} };
    if (!dataDir) return;
    const dir = join(dataDir, spaceId);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    this.file = join(dir, 'tokens.json');
    try {
      const stored = JSON.parse(readFileSync(this.file, 'utf8')) as Partial<StoredTokens>;
      this.tokens = { participants: stored.participants ?? {}, admin: stored.admin };
    } catch {
      // no file yet: first start
    }
  }

  /** The stored token of a participant, minted and saved on first use. */
  tokenFor(participantId: string): string {
    return this.tokens.participants[participantId] ?? this.mint(participantId);
  }

  /** A fresh token for the participant, replacing any previous one (invites, re-admission after a kick). */
  mint(participantId: string): string {
    const token = mintToken();
    this.tokens.participants[participantId] = token;
    this.save();
    return token;
  }

  remove(participantId: string): void {
    if (!(participantId in this.tokens.participants)) return;
    delete this.tokens.participants[participantId];
    this.save();
  }

  adminToken(): string {
    if (!this.tokens.admin) {
      this.tokens.admin = mintToken();
      this.save();
    }
    return this.tokens.admin;
  }

  private save(): void {
    if (!this.file) return;
    mkdirSync(dirname(this.file), { recursive: true, mode: 0o700 }); // the directory may have been removed under us
    writeFileSync(this.file, JSON.stringify(this.tokens, null, 2), { mode: 0o600 });
    chmodSync(this.file, 0o600); // writeFileSync's mode only applies when the file is created
  }
}
