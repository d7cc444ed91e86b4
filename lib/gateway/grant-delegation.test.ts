import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { joinAs, spaceConfig, startGatewayWith, tokenOf, type TestClient, type TestGateway } from './testing';

const readFile = { kind: 'mcp/request', payload: { method: 'tools/call', params: { name: 'read_file' } } };
const grant = (id: string, recipient: string, capabilities: unknown[], extra: Record<string, unknown> = {}) => ({
  id,
  kind: 'capability/grant',
  payload: { recipient, capabilities, ...extra },
});

const config = spaceConfig('chain', {
  lead: [{ kind: 'capability/*' }, { kind: 'chat' }, { kind: 'mcp/request', payload: { method: 'tools/*' } }],
  mid: [{ kind: 'capability/grant' }, { kind: 'chat' }],
  leaf: [{ kind: 'capability/grant' }, { kind: 'chat' }],
  tail: [{ kind: 'chat' }],
});

/** A participant's welcome once its capabilities say `has` about `capability`. */
const welcomeWhere = (client: TestClient, capability: unknown, has: boolean) =>
  client.next((f) => f.kind === 'system/welcome' && f.payload.you.capabilities.some((c: unknown) => JSON.stringify(c) === JSON.stringify(capability)) === has);

describe('delegation chains', () => {
  let gw: TestGateway;
  let lead: TestClient;
  let mid: TestClient;
  let leaf: TestClient;
  let tail: TestClient;
  const start = async (dataDir?: string) => {
    gw = await startGatewayWith({ configs: [config], dataDir });
    [lead, mid, leaf, tail] = await Promise.all(['lead', 'mid', 'leaf', 'tail'].map((id) => joinAs(gw, tokenOf(id), 'space=chain')));
  };
  /** lead → mid → leaf → tail, each handing read_file on; mid also grants itself a copy and gives leaf chat. */
  const buildChain = async (expiresAt?: string) => {
    lead.send(grant('g1', 'mid', [readFile], expiresAt ? { expires_at: expiresAt } : {}));
    await welcomeWhere(mid, readFile, true);
    mid.send(grant('g-self', 'mid', [readFile]));
    await mid.next((f) => f.id === 'g-self');
    mid.send(grant('g2', 'leaf', [readFile]));
    await welcomeWhere(leaf, readFile, true);
    mid.send(grant('g-chat', 'leaf', [{ kind: 'chat' }]));
    await leaf.next((f) => f.id === 'g-chat');
    leaf.send(grant('g3', 'tail', [readFile]));
    await welcomeWhere(tail, readFile, true);
  };
  const grants = () => gw.gateway.spaces.get('chain')!.state.grants;
  afterEach(async () => {
    vi.useRealTimers();
    await gw.close();
  });

  describe('revocation', () => {
    beforeEach(() => start());

    it('revokes, transitively, what the recipient granted onward and no longer holds, each audited with cascade_of', async () => {
      await buildChain();
      lead.send({ id: 'r1', kind: 'capability/revoke', payload: { recipient: 'mid', grant_id: 'g1' } });
      await Promise.all([welcomeWhere(mid, readFile, false), welcomeWhere(leaf, readFile, false), welcomeWhere(tail, readFile, false)]);
      const cascade = await lead.next((f) => f.kind === 'capability/revoke' && f.payload.grant_id === 'g3');
      expect(cascade).toMatchObject({ from: 'system:gateway', to: ['tail'], correlation_id: ['r1'], payload: { recipient: 'tail' } });

      const revoked = Object.fromEntries(grants().map((g) => [g.id, g.revoked]));
      expect(revoked).toMatchObject({
        g1: { by: 'lead', revocationId: 'r1' },
        'g-self': { by: 'system:gateway', cascadeOf: 'g1' },
        g2: { by: 'system:gateway', cascadeOf: 'g1' },
        g3: { by: 'system:gateway', cascadeOf: 'g1' },
        'g-chat': undefined, // mid still holds chat by its config
      });
      const audited = gw.audit.query({ space: 'chain', type: 'ACCESS_REVOKED' });
      expect(audited.map((e) => [e.details.grant_id, e.actor, e.details.cascade_of])).toEqual(
        expect.arrayContaining([
          ['g1', 'lead', undefined],
          ['g-self', 'system:gateway', 'g1'],
          ['g2', 'system:gateway', 'g1'],
          ['g3', 'system:gateway', 'g1'],
        ]),
      );
      expect(audited).toHaveLength(4);
      tail.send({ id: 'call', kind: 'mcp/request', to: ['lead'], payload: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'read_file' } } });
      expect((await tail.kind('system/error')).payload.error).toBe('capability_violation');
    });

    it('cascades a revocation by pattern of the granter’s own capabilities as well', async () => {
      lead.send(grant('g-chat-tail', 'tail', [{ kind: 'chat' }]));
      await tail.next((f) => f.id === 'g-chat-tail');
      mid.send(grant('g-mid-chat', 'leaf', [{ kind: 'chat' }]));
      await leaf.next((f) => f.id === 'g-mid-chat');
      lead.send({ id: 'r-chat', kind: 'capability/revoke', payload: { recipient: 'mid', capabilities: [{ kind: 'chat' }] } });
      await lead.next((f) => f.kind === 'capability/revoke' && f.payload.grant_id === 'g-mid-chat');
      expect(grants().find((g) => g.id === 'g-mid-chat')?.revoked).toMatchObject({ cascadeOf: 'r-chat' });
      expect(grants().find((g) => g.id === 'g-chat-tail')?.revoked).toBeUndefined();
    });
  });

  describe('expiry', () => {
    it('refuses an expires_at that is not a timestamp or has passed', async () => {
      await start();
      lead.send(grant('bad', 'mid', [readFile], { expires_at: 'tomorrow' }));
      expect((await lead.kind('system/error')).payload).toMatchObject({ error: 'invalid_envelope', issues: [{ path: ['payload', 'expires_at'] }] });
      lead.send(grant('past', 'mid', [readFile], { expires_at: '2020-01-01T00:00:00Z' }));
      expect((await lead.kind('system/error')).payload).toMatchObject({ error: 'invalid_envelope', issues: [{ path: ['payload', 'expires_at'] }] });
    });

    it('ends a grant at its expires_at: a fresh welcome, the gateway’s revoke, GRANT_EXPIRED, and the cascade', async () => {
      await start();
      vi.useFakeTimers({ toFake: ['setTimeout', 'Date'], shouldAdvanceTime: true });
      const expiresAt = new Date(Date.now() + 60_000).toISOString();
      await buildChain(expiresAt);
      vi.advanceTimersByTime(59_000);
      expect(grants().find((g) => g.id === 'g1')?.revoked).toBeUndefined();
      vi.advanceTimersByTime(1_000);
      await welcomeWhere(mid, readFile, false);
      const revoke = await lead.next((f) => f.kind === 'capability/revoke' && f.payload.grant_id === 'g1');
      expect(revoke).toMatchObject({ from: 'system:gateway', to: ['mid'], payload: { reason: 'expired' } });
      await welcomeWhere(tail, readFile, false);
      expect(gw.audit.query({ space: 'chain', type: 'GRANT_EXPIRED' })).toMatchObject([
        { actor: 'system:gateway', subject: 'mid', envelope_id: revoke.id, details: { grant_id: 'g1', expires_at: expiresAt } },
      ]);
      expect(grants().find((g) => g.id === 'g3')?.revoked).toMatchObject({ cascadeOf: 'g1' });
    });

    it('survives a restart: the expiry is armed again when the gateway loads', async () => {
      const dataDir = mkdtempSync(join(tmpdir(), 'mew-expiry-'));
      await start(dataDir);
      const expiresAt = new Date(Date.now() + 60_000).toISOString();
      lead.send(grant('g-timed', 'mid', [readFile], { expires_at: expiresAt }));
      await welcomeWhere(mid, readFile, true);
      await gw.close();
      vi.useFakeTimers({ toFake: ['setTimeout', 'Date'], shouldAdvanceTime: true });
      await start(dataDir);
      expect(mid.welcome?.payload.you.capabilities).toContainEqual(readFile);
      vi.advanceTimersByTime(60_000);
      await welcomeWhere(mid, readFile, false);
      expect(grants().find((g) => g.id === 'g-timed')?.revoked).toMatchObject({ by: 'system:gateway', expired: true });
    });
  });
});
