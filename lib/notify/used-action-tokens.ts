import type Database from 'better-sqlite3';

/** The ids of action tokens already used, kept until they expire (then the expiry check refuses them on its own). */
export class UsedActionTokens {
  constructor(private readonly db: Database.Database) {}

  has(tokenId: string): boolean {
    return this.db.prepare('SELECT 1 FROM used_action_tokens WHERE token_id = ?').get(tokenId) !== undefined;
  }

  /** Remembers a token as used, forgetting those that have expired by `now`. */
  use(tokenId: string, expiresAt: number, now: number): void {
    this.db.transaction(() => {
      this.db.prepare('DELETE FROM used_action_tokens WHERE expires_at < ?').run(now);
      this.db.prepare('INSERT INTO used_action_tokens (token_id, expires_at) VALUES (?, ?)').run(tokenId, expiresAt);
    })();
  }
}
