import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { gatewayEnv } from '../server-settings';
import { DATABASE_FILE, GatewayDatabase, INSTANCE_MARKER_FILE } from './gateway-database';
import { PersistenceError } from './persistence-error';

const START_OVER = 'restore it from a backup, or set MEW_START_FRESH=1 to move the old files aside and start a new database';

describe('GatewayDatabase.open: the data directory is never silently replaced', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  const newDataDir = () => {
    const dir = mkdtempSync(join(tmpdir(), 'mew-database-'));
    dirs.push(dir);
    return dir;
  };
  /** A data directory whose database holds one minted token, closed as a gateway leaves it. */
  const usedDataDir = () => {
    const dir = newDataDir();
    const database = GatewayDatabase.open(dir);
    database.db.prepare("INSERT INTO tokens (space, role, holder, token) VALUES ('s', 'participant', 'bob', 'bob-minted-token')").run();
    database.close();
    return dir;
  };
  const instanceIdIn = (file: string) => {
    const db = new Database(file, { readonly: true });
    try {
      return (db.prepare('SELECT id FROM gateway_instance').get() as { id: string }).id;
    } finally {
      db.close();
    }
  };
  const refusal = (dir: string) => {
    try {
      GatewayDatabase.open(dir).close();
    } catch (e) {
      expect(e).toBeInstanceOf(PersistenceError);
      return (e as PersistenceError).message;
    }
    throw new Error('the data directory was opened');
  };

  it('starts a brand new data directory and writes beside it a marker holding the id stored inside', () => {
    const dir = newDataDir();
    GatewayDatabase.open(dir).close();
    const marker = readFileSync(join(dir, INSTANCE_MARKER_FILE), 'utf8').trim();
    expect(marker).toMatch(/^[0-9a-f-]{36}$/);
    expect(instanceIdIn(join(dir, DATABASE_FILE))).toBe(marker);
    expect(statSync(join(dir, INSTANCE_MARKER_FILE)).mode & 0o777).toBe(0o600);
    GatewayDatabase.open(dir).close(); // and opens again
    expect(readFileSync(join(dir, INSTANCE_MARKER_FILE), 'utf8').trim()).toBe(marker);
  });

  it('adopts a database from before the marker: its state is kept and the marker written', () => {
    const dir = usedDataDir();
    rmSync(join(dir, INSTANCE_MARKER_FILE));
    const old = new Database(join(dir, DATABASE_FILE));
    old.exec('DROP TABLE gateway_instance');
    old.close();
    const database = GatewayDatabase.open(dir);
    expect(database.db.prepare('SELECT token FROM tokens').pluck().get()).toBe('bob-minted-token');
    database.close();
    expect(readFileSync(join(dir, INSTANCE_MARKER_FILE), 'utf8').trim()).toBe(instanceIdIn(join(dir, DATABASE_FILE)));
  });

  it('refuses a database file emptied to 0 bytes, naming it and how to start over', () => {
    const dir = usedDataDir();
    const file = join(dir, DATABASE_FILE);
    truncateSync(file, 0);
    expect(refusal(dir)).toBe(`${file}: the database file is empty (0 bytes); ${START_OVER}`);
    expect(statSync(file).size).toBe(0); // nothing was written into it
  });

  it('refuses an empty database file even in a directory without a marker', () => {
    const dir = newDataDir();
    writeFileSync(join(dir, DATABASE_FILE), '');
    expect(refusal(dir)).toContain('the database file is empty (0 bytes)');
    expect(existsSync(join(dir, INSTANCE_MARKER_FILE))).toBe(false);
  });

  it('refuses a file that is not a database, saying how to start over', () => {
    const dir = newDataDir();
    writeFileSync(join(dir, DATABASE_FILE), 'this is not sqlite, it is a text file long enough to have a header');
    expect(refusal(dir)).toBe(`${join(dir, DATABASE_FILE)}: cannot use the database: file is not a database; ${START_OVER}`);
  });

  it('refuses a missing database where the marker shows the directory held one, and creates nothing', () => {
    const dir = usedDataDir();
    rmSync(join(dir, DATABASE_FILE));
    expect(refusal(dir)).toBe(
      `${join(dir, DATABASE_FILE)}: the database is missing but this data directory held one (${INSTANCE_MARKER_FILE} is still there); ${START_OVER}`,
    );
    expect(existsSync(join(dir, DATABASE_FILE))).toBe(false);
  });

  it('refuses a missing database whose -wal and -shm were left behind', () => {
    const dir = newDataDir();
    writeFileSync(join(dir, `${DATABASE_FILE}-wal`), 'left by a crash');
    writeFileSync(join(dir, `${DATABASE_FILE}-shm`), 'left by a crash');
    expect(refusal(dir)).toContain(`the database is missing but this data directory held one (${DATABASE_FILE}-wal and ${DATABASE_FILE}-shm are still there)`);
  });

  it('refuses a database swapped in from another data directory', () => {
    const dir = usedDataDir();
    const other = usedDataDir();
    copyFileSync(join(other, DATABASE_FILE), join(dir, DATABASE_FILE));
    const ours = readFileSync(join(dir, INSTANCE_MARKER_FILE), 'utf8').trim();
    const theirs = instanceIdIn(join(other, DATABASE_FILE));
    expect(refusal(dir)).toBe(
      `${join(dir, DATABASE_FILE)}: this is not the database this data directory was created with (instance ${theirs}, ${INSTANCE_MARKER_FILE} says ${ours}); ` +
        `put the right one back, delete ${INSTANCE_MARKER_FILE} to adopt this one, or set MEW_START_FRESH=1 to move the old files aside and start a new database`,
    );
  });

  it("refuses a database with none of the gateway's tables where the marker says it held them", () => {
    const dir = usedDataDir();
    rmSync(join(dir, DATABASE_FILE));
    const stranger = new Database(join(dir, DATABASE_FILE));
    stranger.exec('CREATE TABLE notes (text TEXT)');
    stranger.close();
    expect(refusal(dir)).toBe(
      `${join(dir, DATABASE_FILE)}: the database has none of the gateway's tables although ${INSTANCE_MARKER_FILE} says this data directory held the gateway's database; ${START_OVER}`,
    );
  });

  it('starts over on purpose: moves every old file aside (renamed, never deleted), says where in one line, starts a new database', () => {
    const dir = usedDataDir();
    const oldId = readFileSync(join(dir, INSTANCE_MARKER_FILE), 'utf8').trim();
    const other = usedDataDir();
    copyFileSync(join(other, DATABASE_FILE), join(dir, DATABASE_FILE)); // a state open would refuse
    writeFileSync(join(dir, `${DATABASE_FILE}-wal`), ''); // and a -wal left beside it
    const log = vi.fn();
    const database = GatewayDatabase.open(dir, { startFresh: true, log });
    expect(database.db.prepare('SELECT count(*) FROM tokens').pluck().get()).toBe(0);
    database.close();

    // Opening the refused file to inspect it already folded its -wal into it (SQLite does so when the last
    // connection closes), so the database and its marker are what is left to move.
    const moved = readdirSync(dir)
      .filter((name) => name.includes('.moved-'))
      .sort();
    const base = moved.find((name) => /^mew\.sqlite\.moved-[\dT-]+Z$/.test(name))!;
    expect(moved).toEqual([base, `${base}.id`].sort());
    expect(log).toHaveBeenCalledTimes(1);
    expect(log.mock.calls[0][0]).toMatch(
      /^\[gateway\] MEW_START_FRESH=1 and the data directory was refused \(.*this is not the database this data directory was created with/,
    );
    expect(log.mock.calls[0][0]).toContain(
      `moved its database files aside in ${dir} (${DATABASE_FILE} → ${base}, ${INSTANCE_MARKER_FILE} → ${base}.id); starting a new database`,
    );
    // The old files are intact: the moved database still holds its token, the moved marker its id.
    const kept = new Database(join(dir, base), { readonly: true });
    expect(kept.prepare('SELECT token FROM tokens').pluck().get()).toBe('bob-minted-token');
    kept.close();
    expect(readFileSync(join(dir, `${base}.id`), 'utf8').trim()).toBe(oldId);
    // The new database has a marker of its own, and opens again without the flag.
    expect(readFileSync(join(dir, INSTANCE_MARKER_FILE), 'utf8').trim()).not.toBe(oldId);
    GatewayDatabase.open(dir).close();
  });

  it('leaves a sound database alone even when MEW_START_FRESH=1 stays set', () => {
    const dir = usedDataDir();
    const log = vi.fn();
    const database = GatewayDatabase.open(dir, { startFresh: true, log });
    expect(database.db.prepare('SELECT token FROM tokens').pluck().get()).toBe('bob-minted-token');
    database.close();
    expect(log).not.toHaveBeenCalled();
  });

  it('takes MEW_DURABILITY from the environment and refuses a value it does not know', () => {
    const env = (vars: Record<string, string>) => vars as NodeJS.ProcessEnv;
    expect(gatewayEnv('/project', env({})).durability).toBe('process');
    expect(gatewayEnv('/project', env({ MEW_DURABILITY: 'power' })).durability).toBe('power');
    expect(() => gatewayEnv('/project', env({ MEW_DURABILITY: 'fsync' }))).toThrow('MEW_DURABILITY must be one of process, power, not "fsync"');
    const database = GatewayDatabase.open(newDataDir(), { durability: 'power' });
    expect(database.db.pragma('synchronous', { simple: true })).toBe(2); // FULL
    database.close();
  });

  it('starting over in a brand new directory moves nothing and says nothing', () => {
    const dir = newDataDir();
    const log = vi.fn();
    GatewayDatabase.open(dir, { startFresh: true, log }).close();
    expect(log).not.toHaveBeenCalled();
    expect(readdirSync(dir).sort()).toEqual([DATABASE_FILE, INSTANCE_MARKER_FILE]);
  });

  it('takes MEW_START_FRESH=1 from the environment, and nothing else', () => {
    const env = (vars: Record<string, string>) => vars as NodeJS.ProcessEnv;
    expect(gatewayEnv('/project', env({ MEW_START_FRESH: '1' })).startFresh).toBe(true);
    expect(gatewayEnv('/project', env({ MEW_START_FRESH: 'yes' })).startFresh).toBe(false);
    expect(gatewayEnv('/project', env({})).startFresh).toBe(false);
  });

  it('ends the server with the refusal as one line and exit code 1, no stack trace', { timeout: 60_000 }, async () => {
    const dir = newDataDir();
    writeFileSync(join(dir, DATABASE_FILE), '');
    writeFileSync(join(dir, 'space.json'), JSON.stringify({ space: { id: 'refused' }, participants: { human: { tokens: ['human-token-0123456789'] } } }));
    const gateway = spawn(process.execPath, ['--import', 'tsx', 'scripts/gateway.ts'], {
      env: { ...process.env, PORT: '0', HOST: '127.0.0.1', MEW_SPACE_CONFIG: join(dir, 'space.json'), MEW_DATA_DIR: dir, MEW_START_FRESH: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    gateway.stdout.on('data', (chunk: Buffer) => (stdout += chunk));
    gateway.stderr.on('data', (chunk: Buffer) => (stderr += chunk));
    const code = await new Promise((resolve) => gateway.once('close', resolve));
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toBe(`Cannot start: ${join(dir, DATABASE_FILE)}: the database file is empty (0 bytes); ${START_OVER}\n`);
  });
});
