import type Database from 'better-sqlite3';
import { putRow, type ChangeListener } from '../host/change-record';

/** The ids of action tokens already used, kept until they expire (then the expiry check refuses them on its own). */
export class UsedActionTokens {
  constructor(
    private readonly db: Database.Database,
    private readonly replicate?: ChangeListener,
  ) {}

  has(tokenId: string): boolean {
    return this.db.prepare('SELECT 1 FROM used_action_tokens WHERE token_id = ?').get(tokenId) !== undefined;
  }

  /** Remembers a token as used, forgetting those that have expired by `now`. */
  use(tokenId: string, expiresAt: number, now: number): void {
    this.db.transaction(() => {
      const expired = this.db.prepare('DELETE FROM used_action_tokens WHERE expires_at < ? RETURNING token_id').pluck().all(now) as string[];
      for (const id of expired) this.replicate?.({ table: 'used_action_tokens', key: id, row: null });
      const row = { token_id: tokenId, expires_at: expiresAt };
      putRow(this.db, 'used_action_tokens', row);
      this.replicate?.({ table: 'used_action_tokens', key: tokenId, row });
    })();
  }
}
