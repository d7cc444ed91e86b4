import WebSocket from 'ws';
import Database from 'better-sqlite3';
import { mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createGatewayServer } from '../host/gateway-server';
import { DATABASE_FILE } from './persistence/gateway-database';
import { PersistenceError } from './persistence/persistence-error';
import { readStoredTokens } from './persistence/stored-tokens';
import { parseSpaceConfig } from './space-config';
import { joinAs, spaceConfig, startGatewayWith, TestClient, tokenOf, type TestGateway } from './testing';

const config = spaceConfig('persist', {
  lead: [{ kind: '*' }],
  agent: [{ kind: 'chat' }, { kind: 'mcp/proposal' }],
  victim: [{ kind: 'chat' }],
});
/** Participants without config tokens: the gateway mints theirs. */
const minted = { space: { id: 'minted' }, participants: { human: { capabilities: [{ kind: '*' }] }, bot: { capabilities: [{ kind: 'chat' }] } } };

const newDataDir = () => mkdtempSync(join(tmpdir(), 'mew-persist-'));

describe('a gateway restart', () => {
  const open: TestGateway[] = [];
  afterEach(async () => {
    for (const gw of open.splice(0)) await gw.close();
  });
  const start = async (dataDir: string, configs: unknown[] = [config], port?: number) => {
    const gw = await startGatewayWith({ configs, dataDir, port });
    open.push(gw);
    return gw;
  };
  const stop = async (gw: TestGateway) => {
    open.splice(open.indexOf(gw), 1);
    await gw.close();
  };

  it('keeps grants, revocations, invites, kicks and pauses, in one database readable by its owner only', async () => {
    const dataDir = newDataDir();
    const first = await start(dataDir);
    const lead = await joinAs(first, tokenOf('lead'), 'space=persist');
    lead.send({ kind: 'capability/grant', payload: { recipient: 'agent', capabilities: [{ kind: 'reasoning/*' }] } });
    await lead.kind('capability/grant');
    lead.send({ kind: 'capability/revoke', payload: { recipient: 'agent', capabilities: [{ kind: 'mcp/proposal' }] } });
    await lead.kind('capability/revoke');
    lead.send({ kind: 'space/invite', payload: { participant_id: 'guest', initial_capabilities: [{ kind: 'chat' }] } });
    const { payload: ack } = await lead.kind('space/invite-ack');
    lead.send({ kind: 'space/kick', payload: { participant_id: 'victim' } });
    await lead.kind('space/kick');
    lead.send({ kind: 'participant/pause', to: ['agent'], payload: { reason: 'review' } });
    await lead.kind('participant/pause');
    expect(statSync(join(dataDir, DATABASE_FILE)).mode & 0o777).toBe(0o600);
    await stop(first);

    const second = await start(dataDir, [config], first.port);
    const agent = await joinAs(second, tokenOf('agent'), 'space=persist');
    expect(agent.welcome?.payload.you.capabilities).toEqual([{ kind: 'chat' }, { kind: 'reasoning/*' }]);
    agent.send({ kind: 'chat', payload: { text: 'still paused?' } });
    expect((await agent.kind('system/error')).payload.error).toBe('participant_paused');
    const guest = await joinAs(second, ack.token, 'space=persist');
    expect(guest.welcome?.payload.you.capabilities).toEqual([{ kind: 'chat' }]);
    const victim = new TestClient(new WebSocket(second.wsUrl('space=persist'), { headers: { Authorization: `Bearer ${tokenOf('victim')}` } }));
    await expect(victim.opened).rejects.toMatchObject({ status: 401 });
  });

  it('keeps minted tokens, and serves the history a reconnecting client missed from the database', async () => {
    const dataDir = newDataDir();
    const first = await start(dataDir, [minted]);
    const tokens = readStoredTokens(dataDir, 'minted');
    // The rule supervisor the gateway adds has a minted token too, kept like the others.
    expect(Object.keys(tokens.participants).sort()).toEqual(['bot', 'human', 'rules']);
    expect(tokens.admin).toMatch(/^[\w-]{43}$/);
    const human = await joinAs(first, tokens.participants.human, 'space=minted');
    human.send({ kind: 'chat', payload: { text: 'before the restart' } });
    const echo = await human.kind('chat');
    await stop(first);

    const second = await start(dataDir, [minted], first.port);
    expect(readStoredTokens(dataDir, 'minted')).toEqual(tokens);
    const bot = await joinAs(second, tokens.participants.bot, `space=minted&after=0`);
    expect(bot.received.filter((f) => f.kind === 'chat').map((f) => [f.id, f.cursor])).toEqual([[echo.id, echo.cursor]]);
    expect(bot.welcome!.payload.catch_up.complete).toBe(true);
    const again = await joinAs(second, tokens.participants.human, `space=minted&after=${echo.cursor}`);
    // Only what followed the cursor: human's own leave at the restart and bot's join, nothing twice.
    expect(again.welcome!.payload.catch_up).toEqual({ replayed: 2, complete: true });
    expect(again.received.map((f) => [f.kind, f.payload.event, f.payload.participant.id])).toEqual([
      ['system/presence', 'leave', 'human'],
      ['system/presence', 'join', 'bot'],
    ]);
  });

  it('keeps exactly the retained window of a busy space across a restart', async () => {
    const dataDir = newDataDir();
    const small = { ...minted, limits: { history_size: 50 } };
    const first = await start(dataDir, [small]);
    const tokens = readStoredTokens(dataDir, 'minted');
    const human = await joinAs(first, tokens.participants.human, 'space=minted');
    for (let i = 0; i < 120; i++) human.send({ kind: 'chat', payload: { text: `n${i}` } });
    await human.next((f) => f.kind === 'chat' && f.payload.text === 'n119');
    await stop(first);

    const second = await start(dataDir, [small], first.port);
    const bot = await joinAs(second, tokens.participants.bot, 'space=minted&after=0');
    const texts = bot.received.filter((f) => f.kind === 'chat').map((f) => f.payload.text);
    expect(texts).toEqual(Array.from({ length: 49 }, (_, i) => `n${i + 71}`)); // 50 retained: human's leave is the newest
    expect(bot.welcome!.payload.catch_up.complete).toBe(false);
  });

  it('keeps every cursor meaningful after an unclean stop: numbers continue from the last written envelope', async () => {
    const dataDir = newDataDir();
    const first = createGatewayServer({ spaces: [parseSpaceConfig(minted)], dataDir });
    const port = await first.listen(0, '127.0.0.1');
    const tokens = readStoredTokens(dataDir, 'minted');
    const human = await joinAs({ wsUrl: (q) => `ws://127.0.0.1:${port}/ws?${q}` }, tokens.participants.human, 'space=minted');
    for (const text of ['a', 'b']) human.send({ kind: 'chat', payload: { text } });
    const a = await human.next((f) => f.kind === 'chat' && (f.payload as { text: string }).text === 'a');
    const b = await human.next((f) => f.kind === 'chat' && (f.payload as { text: string }).text === 'b');
    // No close(): the process "died" with its epoch still marked running; what it showed was written first.
    first.server.closeAllConnections();
    first.server.close();
    const second = await start(dataDir, [minted]);
    const bot = await joinAs(second, tokens.participants.bot, `space=minted&after=${a.cursor}`);
    expect(bot.welcome!.payload.catch_up).toEqual({ replayed: 1, complete: true });
    expect(bot.received.filter((f) => f.kind === 'chat').map((f) => f.id)).toEqual([b.id]);
    const [oldEpoch, oldSeq] = (b.cursor as string).split('-');
    const [newEpoch, newSeq] = (bot.welcome!.cursor as string).split('-');
    // A new name for the numbers from here on, which continue (so an old cursor past them is recognised as unknown).
    expect(newEpoch).not.toBe(oldEpoch);
    expect(Number(newSeq)).toBeGreaterThan(Number(oldSeq));
    // A cursor into entries that were never written (a power loss) is not taken for a position among the new ones.
    const lost = await joinAs(second, tokens.participants.bot, `space=minted&after=${oldEpoch}-${Number(oldSeq) + 5}`);
    expect(lost.welcome!.payload.catch_up.complete).toBe(false);
  });

  it('migrates tokens.json and state.json once, in one go, and keeps the files as *.migrated', async () => {
    const dataDir = newDataDir();
    mkdirSync(join(dataDir, 'minted'));
    writeFileSync(
      join(dataDir, 'minted', 'tokens.json'),
      JSON.stringify({ participants: { human: 'legacy-human-token-000000001', guest: 'legacy-guest-token-000000001' }, admin: 'legacy-admin-token-00000001' }),
    );
    writeFileSync(
      join(dataDir, 'minted', 'state.json'),
      JSON.stringify({
        version: 1,
        grants: [{ id: 'g1', recipient: 'bot', capabilities: [{ kind: 'reasoning/*' }], grantedBy: 'human', ts: '2026-01-01T00:00:00Z' }],
        revocations: [],
        invited: [{ id: 'guest', capabilities: [{ kind: 'chat' }], invitedBy: 'human', ts: '2026-01-01T00:00:00Z' }],
        kicked: [],
      }),
    );
    const gw = await start(dataDir, [minted]);
    expect(existsSync(join(dataDir, 'minted', 'tokens.json'))).toBe(false);
    expect(readFileSync(join(dataDir, 'minted', 'tokens.json.migrated'), 'utf8')).toContain('legacy-human-token');
    expect(existsSync(join(dataDir, 'minted', 'state.json.migrated'))).toBe(true);
    const guest = await joinAs(gw, 'legacy-guest-token-000000001', 'space=minted');
    expect(guest.welcome!.payload.you).toEqual({ id: 'guest', capabilities: [{ kind: 'chat' }] });
    const bot = await joinAs(gw, readStoredTokens(dataDir, 'minted').participants.bot, 'space=minted');
    expect(bot.welcome!.payload.you.capabilities).toEqual([{ kind: 'chat' }, { kind: 'reasoning/*' }]);
    const admin = await fetch(gw.httpUrl('/admin/spaces/minted/participants'), { headers: { Authorization: 'Bearer legacy-admin-token-00000001' } });
    expect(admin.status).toBe(200);
  });

  it('refuses to start on a tokens.json it cannot read, instead of minting new tokens over it', () => {
    const dataDir = newDataDir();
    mkdirSync(join(dataDir, 'minted'));
    writeFileSync(join(dataDir, 'minted', 'tokens.json'), '{"participants": {"human": "tok');
    expect(() => createGatewayServer({ spaces: [parseSpaceConfig(minted)], dataDir })).toThrow(PersistenceError);
    expect(() => createGatewayServer({ spaces: [parseSpaceConfig(minted)], dataDir })).toThrow(/tokens\.json: minted tokens is not valid JSON/);
    expect(readFileSync(join(dataDir, 'minted', 'tokens.json'), 'utf8')).toBe('{"participants": {"human": "tok');
  });

  it('refuses a state.json or a database row that does not validate, naming the file and the field', async () => {
    const dataDir = newDataDir();
    mkdirSync(join(dataDir, 'minted'));
    writeFileSync(
      join(dataDir, 'minted', 'state.json'),
      JSON.stringify({ version: 1, grants: [{ id: 'g', recipient: 'bot', capabilities: [{ kidn: 'chat' }] }], revocations: [], invited: [], kicked: [] }),
    );
    expect(() => createGatewayServer({ spaces: [parseSpaceConfig(minted)], dataDir })).toThrow(
      /state\.json: space state does not validate: grants\[0\]\.capabilities\[0\]/,
    );

    const other = newDataDir();
    await stop(await start(other, [minted]));
    const db = new Database(join(other, DATABASE_FILE));
    db.prepare("UPDATE space_state SET data = json_set(data, '$.kicked', json('[42]')) WHERE space = 'minted'").run();
    db.close();
    expect(() => createGatewayServer({ spaces: [parseSpaceConfig(minted)], dataDir: other })).toThrow(
      /mew\.sqlite: space "minted" state does not validate: kicked\[0\]/,
    );
  });

  it('refuses a file that is not a database, naming it', () => {
    const dataDir = newDataDir();
    writeFileSync(join(dataDir, DATABASE_FILE), 'this is not sqlite, it is a text file long enough to have a header');
    expect(() => createGatewayServer({ spaces: [parseSpaceConfig(minted)], dataDir })).toThrow(/mew\.sqlite: cannot use the database: file is not a database/);
  });

  it('writes an invite’s token and record in one transaction: a failed write leaves neither', async () => {
    const dataDir = newDataDir();
    const gw = await start(dataDir);
    const records = gw.gateway.spaces.get('persist')!.services.records;
    // A trigger that fails the state write after the token rows would have been written.
    const db = new Database(join(dataDir, DATABASE_FILE));
    db.exec(
      "CREATE TRIGGER fail_invite BEFORE INSERT ON space_state WHEN json_extract(NEW.data, '$.invited[0].id') = 'ghost' BEGIN SELECT RAISE(ABORT, 'disk full'); END;",
    );
    db.close();
    const lead = await joinAs(gw, tokenOf('lead'), 'space=persist');
    lead.send({ id: 'invite-ghost', kind: 'space/invite', payload: { participant_id: 'ghost', initial_capabilities: [{ kind: 'chat' }] } });
    const error = await lead.kind('system/error');
    expect(error).toMatchObject({ correlation_id: ['invite-ghost'], payload: { error: 'internal_error' } });
    expect(records.data.invited).toEqual([]);
    expect(readStoredTokens(dataDir, 'persist').participants.ghost).toBeUndefined();
    expect(records.mintedTokens().ghost).toBeUndefined();
  });
});
