import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { joinAs, spaceConfig, startTestGateway, tokenOf, type TestClient, type TestGateway } from './testing';

const config = spaceConfig('req', { agent: [{ kind: '*' }] });

describe('fields the spec makes mandatory for a kind', () => {
  let gw: TestGateway;
  let agent: TestClient;
  beforeEach(async () => {
    gw = await startTestGateway(config);
    agent = await joinAs(gw, tokenOf('agent'), 'space=req');
  });
  afterEach(() => gw.close());

  it.each([
    ['mcp/response', { jsonrpc: '2.0', id: 1, result: {} }],
    ['mcp/withdraw', { reason: 'no_longer_needed' }],
    ['mcp/reject', { reason: 'unsafe' }],
    ['chat/acknowledge', { status: 'received' }],
    ['chat/cancel', { reason: 'duplicate' }],
    ['participant/compact-done', { skipped: true }],
  ])('refuses %s without a correlation_id, naming the field, and routes nothing', async (kind, payload) => {
    agent.send({ id: 'bare', kind, payload });
    const error = await agent.kind('system/error');
    expect(error).toMatchObject({ correlation_id: ['bare'], payload: { error: 'invalid_envelope', issues: [{ path: ['correlation_id'] }] } });
    agent.send({ id: 'answered', kind, correlation_id: ['env-1'], payload });
    await agent.next((f) => f.id === 'answered');
    expect(agent.received.some((f) => f.id === 'bare')).toBe(false);
  });

  it('refuses a reasoning/cancel without the context of the sequence it ends', async () => {
    agent.send({ id: 'loose', kind: 'reasoning/cancel', payload: { reason: 'superseded' } });
    expect((await agent.kind('system/error')).payload).toMatchObject({ error: 'invalid_envelope', issues: [{ path: ['context'] }] });
    agent.send({ id: 'scoped', kind: 'reasoning/cancel', context: 'reason-start-1', payload: { reason: 'superseded' } });
    await agent.next((f) => f.id === 'scoped');
  });
});
