import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DATABASE_FILE, GatewayDatabase } from './gateway-database';
import { PersistenceError } from './persistence-error';
import { MIN_STORED_TOKEN_LENGTH, parseRecordsDocument, SpaceRecords } from './space-records';
import { readStoredTokens } from './stored-tokens';

const SPACE = 'stored';
/** A token one character under the minimum: no gateway mints one so short. */
const TOO_SHORT = 'x'.repeat(MIN_STORED_TOKEN_LENGTH - 1);
const GOOD = 'a-stored-token-long-enough-0123456789';

describe('stored tokens are as long as minted ones', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  /** A data directory whose tokens table holds these rows for the space. */
  const withTokens = (rows: [role: string, holder: string, token: string][]) => {
    const dir = mkdtempSync(join(tmpdir(), 'mew-stored-tokens-'));
    dirs.push(dir);
    const database = GatewayDatabase.open(dir);
    const insert = database.db.prepare('INSERT INTO tokens (space, role, holder, token) VALUES (?, ?, ?, ?)');
    for (const row of rows) insert.run(SPACE, ...row);
    database.close();
    return dir;
  };
  const refusalOf = (load: () => unknown) => {
    try {
      load();
    } catch (e) {
      expect(e).toBeInstanceOf(PersistenceError);
      return (e as PersistenceError).message;
    }
    throw new Error('the tokens were loaded');
  };

  it('a participant token under the minimum is refused when the gateway loads the space, naming file, space and holder', () => {
    const dir = withTokens([
      ['participant', 'alice', GOOD],
      ['participant', 'bob', TOO_SHORT],
    ]);
    const database = GatewayDatabase.open(dir);
    try {
      const message = refusalOf(() => new SpaceRecords(database, SPACE));
      expect(message).toBe(
        `${join(dir, DATABASE_FILE)}: space "${SPACE}": participant "bob"'s token is ${TOO_SHORT.length} characters, shorter than any the gateway mints (${MIN_STORED_TOKEN_LENGTH}); restore the database from a backup, or delete that tokens row so a new token is minted`,
      );
      expect(message).not.toContain(GOOD);
    } finally {
      database.close();
    }
  });

  it('an admin token under the minimum is refused too', () => {
    const dir = withTokens([['admin', '', TOO_SHORT]]);
    const database = GatewayDatabase.open(dir);
    try {
      expect(refusalOf(() => new SpaceRecords(database, SPACE))).toContain(`space "${SPACE}": the admin token is ${TOO_SHORT.length} characters`);
    } finally {
      database.close();
    }
  });

  it('readStoredTokens (operator tools, e2e) refuses it with the same message', () => {
    const dir = withTokens([['participant', 'bob', TOO_SHORT]]);
    expect(refusalOf(() => readStoredTokens(dir, SPACE))).toContain(
      `${join(dir, DATABASE_FILE)}: space "${SPACE}": participant "bob"'s token is ${TOO_SHORT.length} characters`,
    );
  });

  it('tokens of any allowed length load as stored', () => {
    const dir = withTokens([
      ['participant', 'bob', 'b'.repeat(MIN_STORED_TOKEN_LENGTH)],
      ['admin', '', GOOD],
    ]);
    expect(readStoredTokens(dir, SPACE)).toEqual({ participants: { bob: 'b'.repeat(MIN_STORED_TOKEN_LENGTH) }, admin: GOOD });
    const database = GatewayDatabase.open(dir);
    try {
      expect(new SpaceRecords(database, SPACE).mintedTokens()).toEqual({ bob: 'b'.repeat(MIN_STORED_TOKEN_LENGTH) });
    } finally {
      database.close();
    }
  });

  it('a records document kept outside the database (cluster mode) is held to the minimum too', () => {
    const document = JSON.stringify({
      state: { version: 1, grants: [], revocations: [], invited: [], kicked: [] },
      tokens: { participants: { bob: TOO_SHORT } },
    });
    expect(() => parseRecordsDocument('redis:records', document)).toThrow(
      /redis:records: space records does not validate: tokens\.participants\.bob: a minted token is at least/,
    );
  });
});
