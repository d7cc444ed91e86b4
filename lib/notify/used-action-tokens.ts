import type Database from 'better-sqlite3';
import { putNotifyRow, type NotifyRowListener } from './notify-rows';

/** The ids of action tokens already used, kept until they expire (then the expiry check refuses them on its own). */
export class UsedActionTokens {
  constructor(
    private readonly db: Database.Database,
    private readonly replicate?: NotifyRowListener,
  ) {}

  has(tokenId: string): boolean {
    return this.db.prepare('SELECT 1 FROM used_action_tokens WHERE token_id = ?').get(tokenId) !== undefined;
  }

  /** Remembers a token as used, forgetting those that have expired by `now`. */
  use(tokenId: string, expiresAt: number, now: number): void {
    this.db.transaction(() => {
      const expired = this.db.prepare('DELETE FROM used_action_tokens WHERE expires_at < ? RETURNING token_id').pluck().all(now) as string[];
      for (const id of expired) this.replicate?.('used_action_tokens', id, undefined);
      const row = { token_id: tokenId, expires_at: expiresAt };
      putNotifyRow(this.db, 'used_action_tokens', row);
      this.replicate?.('used_action_tokens', tokenId, row);
    })();
  }
}
