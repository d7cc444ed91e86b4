import { join } from 'node:path';
import Database from 'better-sqlite3';
import { DATABASE_FILE } from './gateway-database';
import { PersistenceError } from './persistence-error';
import { checkStoredToken } from './space-records';

/** The tokens a gateway minted for one space: participant id → token, and the admin token when minted. */
export interface StoredTokens {
  participants: Record<string, string>;
  admin?: string;
}

/**
 * Reads a space's minted tokens from a data directory's database, read-only, for processes beside the gateway
 * (operator tools, end-to-end tests). The gateway itself reads them through `SpaceRecords`.
 *
 * @example
 * readStoredTokens('data', 'demo').participants.human;
 */
export function readStoredTokens(dataDir: string, space: string): StoredTokens {
  const file = join(dataDir, DATABASE_FILE);
  let db: Database.Database;
  try {
    db = new Database(file, { readonly: true, fileMustExist: true });
  } catch (e) {
    throw new PersistenceError(file, `cannot open the database: ${(e as Error).message} (has the gateway been started with this data directory?)`);
  }
  try {
    const rows = db.prepare('SELECT role, holder, token FROM tokens WHERE space = ?').all(space) as { role: string; holder: string; token: string }[];
    const tokens: StoredTokens = { participants: {} };
    for (const row of rows) {
      checkStoredToken(file, space, row);
      if (row.role === 'admin') tokens.admin = row.token;
      else tokens.participants[row.holder] = row.token;
    }
    return tokens;
  } finally {
    db.close();
  }
}
