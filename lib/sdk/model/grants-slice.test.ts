import { describe, expect, it } from 'vitest';
import { applyEnvelopes } from './apply-envelope';
import { activeCapabilities } from './grants-slice';
import { grantList, grantedCapabilities } from './space-selectors';
import { createSpaceState, type SpaceState } from './space-state';
import type { StoreEnvelope } from './store-envelope';
import { env, T0 } from './testing';

const readFile = { kind: 'mcp/request', payload: { method: 'tools/call', params: { name: 'read_file' } } };
const listTools = { kind: 'mcp/request', payload: { method: 'tools/list' } };

function run(envelopes: StoreEnvelope[]): SpaceState {
  return applyEnvelopes(createSpaceState({ me: 'human' }, T0), envelopes, T0 + 1_000);
}

function grant(id: string, recipient: string, capabilities: unknown[], at = 0): StoreEnvelope {
  return env({
    id,
    at,
    from: 'trusted-orchestrator',
    to: [recipient],
    kind: 'capability/grant',
    payload: { recipient, capabilities, reason: 'Demonstrated safe file handling' },
  });
}

describe('grants', () => {
  it('records a grant (id = envelope id) and its acknowledgement by the recipient (spec §3.6.1, §3.6.3)', () => {
    const s = run([
      grant('grant-789', 'untrusted-agent', [readFile]),
      env({ id: 'ack-002', at: 5, from: 'someone-else', correlation_id: ['grant-789'], kind: 'capability/grant-ack', payload: { status: 'accepted' } }),
      env({ id: 'ack-001', at: 10, from: 'untrusted-agent', correlation_id: ['grant-789'], kind: 'capability/grant-ack', payload: { status: 'accepted' } }),
    ]);
    expect(s.grants.byId.get('grant-789')!).toEqual({
      id: 'grant-789',
      granter: 'trusted-orchestrator',
      recipient: 'untrusted-agent',
      capabilities: [readFile],
      reason: 'Demonstrated safe file handling',
      at: T0,
      revokedCapabilities: [],
      ack: { id: 'ack-001', status: 'accepted', at: T0 + 10 },
    });
    expect(grantedCapabilities(s, 'untrusted-agent')).toEqual([readFile]);
  });

  it('revokes by grant_id, recording who revoked it', () => {
    const s = run([
      grant('grant-789', 'agent', [readFile]),
      env({
        id: 'revoke-123',
        at: 20,
        from: 'orchestrator',
        kind: 'capability/revoke',
        payload: { recipient: 'agent', grant_id: 'grant-789', reason: 'Task completed' },
      }),
    ]);
    expect(s.grants.byId.get('grant-789')!.revoked).toEqual({ id: 'revoke-123', by: 'orchestrator', at: T0 + 20, reason: 'Task completed', how: 'grant_id' });
    expect(activeCapabilities(s.grants.byId.get('grant-789')!)).toEqual([]);
    expect(grantList(s, 'agent', false)).toEqual([]);
    expect(grantList(s, 'agent')).toHaveLength(1);
  });

  it('revokes by pattern: grants whose capabilities are all covered are revoked, partly covered ones keep the rest', () => {
    const s = run([
      grant('g-read', 'agent', [readFile]),
      grant('g-mixed', 'agent', [listTools, { kind: 'chat' }], 1),
      grant('g-other', 'other-agent', [readFile], 2),
      env({
        id: 'revoke-456',
        at: 30,
        from: 'orchestrator',
        kind: 'capability/revoke',
        payload: { recipient: 'agent', capabilities: [{ kind: 'mcp/request', payload: { method: 'tools/*' } }], reason: 'No longer needed' },
      }),
    ]);
    expect(s.grants.byId.get('g-read')!.revoked).toMatchObject({ id: 'revoke-456', by: 'orchestrator', how: 'capabilities' });
    expect(s.grants.byId.get('g-mixed')!.revoked).toBeUndefined();
    expect(s.grants.byId.get('g-mixed')!.revokedCapabilities).toEqual([listTools]);
    expect(activeCapabilities(s.grants.byId.get('g-mixed')!)).toEqual([{ kind: 'chat' }]);
    expect(s.grants.byId.get('g-other')!.revoked).toBeUndefined();
    expect(grantedCapabilities(s, 'agent')).toEqual([{ kind: 'chat' }]);
  });

  it('treats malformed revoke patterns as covering nothing', () => {
    const s = run([
      grant('g', 'agent', [readFile]),
      env({ id: 'bad', at: 5, from: 'o', kind: 'capability/revoke', payload: { recipient: 'agent', capabilities: [{ kind: 42 }] } }),
    ]);
    expect(s.grants.byId.get('g')!.revoked).toBeUndefined();
  });
});
