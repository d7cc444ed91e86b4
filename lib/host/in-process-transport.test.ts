import Database from 'better-sqlite3';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CLOSE_CODES } from '../protocol';
import { MEWParticipant } from '../sdk/mew-participant';
import { nextEvent, participantFactory } from '../sdk/testing';
import { inProcessTransport } from './in-process-transport';
import { DATABASE_FILE } from '../gateway/persistence/gateway-database';
import { joinAs, spaceConfig, startGatewayWith, tokenOf, type TestGateway } from '../gateway/testing';

// A participant in the gateway's own process (an MCP session) is one of its connections like a socket: the same
// pipeline, presence, routing, kick, and what it is shown is durable first.

const CONFIG = spaceConfig('local', { lead: [{ kind: '*' }], helper: [{ kind: ['chat', 'mcp/response'] }] });

describe('in-process transport', () => {
  let gw: TestGateway;
  const joined: MEWParticipant[] = [];
  afterEach(async () => {
    vi.restoreAllMocks();
    for (const participant of joined.splice(0)) participant.disconnect();
    await gw?.close();
  });

  async function start(dataDir?: string) {
    gw = await startGatewayWith({ configs: [CONFIG], dataDir });
    return gw;
  }

  function local(id: string, options: { token?: string; space?: string } = {}) {
    const participant = new MEWParticipant({
      gateway: 'ws://in-process/ws?routing=directed',
      space: options.space ?? 'local',
      token: options.token ?? tokenOf(id),
      reconnect: false,
      transport: inProcessTransport(gw.gateway),
    });
    joined.push(participant);
    return participant;
  }

  it('joins as its participant: present to others, its chat reaches a socket, a tool on a socket answers it', async () => {
    await start();
    const sockets = participantFactory('local', () => gw.wsUrl(), tokenOf);
    const helper = sockets.create('helper', { autoDiscovery: false });
    helper.tools.register({ name: 'echo', execute: ({ text }) => `echo ${String(text)}` });
    await helper.connect();
    const lead = local('lead');
    const joinSeen = nextEvent(helper, 'participant-join', (p) => p.id === 'lead');
    await lead.connect();
    await joinSeen;
    expect(gw.gateway.spaces.get('local')!.participants.get('lead')!.links[0].routing).toBe('directed');
    const chat = nextEvent(helper.client, 'chat', (e) => e.from === 'lead');
    lead.chat.send('hello from inside');
    expect((await chat).payload.text).toBe('hello from inside');
    await expect(lead.mcpRequest('helper', { method: 'tools/call', params: { name: 'echo', arguments: { text: 'hi' } } })).resolves.toMatchObject({
      content: [{ type: 'text', text: 'echo hi' }],
    });
    sockets.disconnectAll();
  });

  it('ends for good when kicked (4403), and refuses an unknown token (4401) or space (4404)', async () => {
    await start();
    const helper = local('helper');
    await helper.connect();
    const operator = await joinAs(gw, tokenOf('lead'));
    const ended = nextEvent(helper.client, 'status', (change) => change.status === 'error');
    operator.send({ kind: 'space/kick', to: ['helper'], payload: { participant_id: 'helper' } });
    await ended;
    expect(helper.client.lastClose?.code).toBe(CLOSE_CODES.kicked);
    expect(gw.gateway.spaces.get('local')!.participants.get('helper')?.online).toBeFalsy();
    operator.close();

    const stranger = local('lead', { token: 'not-a-token-of-this-space' });
    await expect(stranger.connect()).rejects.toThrow();
    expect(stranger.client.lastClose?.code).toBe(CLOSE_CODES.unauthorized);
    const lost = local('lead', { space: 'elsewhere' });
    await expect(lost.connect()).rejects.toThrow();
    expect(lost.client.lastClose?.code).toBe(CLOSE_CODES.unknown_space);
  });

  it('shows nothing the gateway could not write yet: a chat waits while history writes fail', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'mew-in-process-'));
    await start(dataDir);
    // The history store reports each write it could not make: the chat was routed, and its write failed.
    const failed = new Promise<void>((resolve) => {
      vi.spyOn(console, 'error').mockImplementation((...args) => {
        if (String(args[0]).startsWith('[history] cannot write')) resolve();
      });
    });
    const helper = local('helper');
    await helper.connect();
    const lead = await joinAs(gw, tokenOf('lead'));
    const db = new Database(join(dataDir, DATABASE_FILE));
    db.exec("CREATE TRIGGER fail_history BEFORE INSERT ON history_chunks BEGIN SELECT RAISE(ABORT, 'disk full'); END;");
    const seen: string[] = [];
    helper.client.on('chat', (envelope) => seen.push(envelope.payload.text));
    lead.send({ kind: 'chat', payload: { text: 'after the write' } });
    await failed;
    expect(seen).toEqual([]);
    db.exec('DROP TRIGGER fail_history');
    db.close();
    await expect.poll(() => seen, { timeout: 5_000 }).toEqual(['after the write']);
    lead.close();
  });
});
