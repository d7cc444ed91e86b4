import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SECURITY_EVENT_BURST } from './gateway-options';
import { rejectionOf } from '../sdk/testing';
import { joinAs, spaceConfig, startTestGateway, tokenOf, type TestClient, type TestGateway } from './testing';

describe('security events, live', () => {
  let gw: TestGateway;
  let operator: TestClient;
  let bystander: TestClient;
  let agent: TestClient;
  beforeEach(async () => {
    gw = await startTestGateway(
      spaceConfig('sec', { operator: [{ kind: '*' }], bystander: ['chat'], agent: ['chat'] }, { limits: { rate_per_second: 10_000, rate_burst: 10_000 } }),
    );
    operator = await joinAs(gw, tokenOf('operator'), 'space=sec');
    bystander = await joinAs(gw, tokenOf('bystander'), 'space=sec');
    agent = await joinAs(gw, tokenOf('agent'), 'space=sec');
  });
  afterEach(() => gw.close());

  it('tells operators, and only them, what was refused and why', async () => {
    agent.send({ id: 'try', kind: 'mcp/request', to: ['operator'], payload: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'rm_rf' } } });
    const told = await operator.kind('system/security-event');
    expect(told).toMatchObject({
      from: 'system:gateway',
      to: ['operator'],
      payload: { offender: 'agent', error: 'capability_violation', attempted_kind: 'mcp/request', tool: 'rm_rf', envelope_id: 'try' },
    });
    expect((await agent.kind('system/error')).payload.error).toBe('capability_violation');
    // A marker the bystander sees after the refusal: had it been told, it would have been told first.
    operator.send({ id: 'marker', kind: 'chat', payload: { text: 'after' } });
    await bystander.next((f) => f.id === 'marker');
    await agent.next((f) => f.id === 'marker');
    for (const client of [bystander, agent]) expect(client.received.filter((f) => f.kind === 'system/security-event')).toEqual([]);
  });

  it('tells a burst, then counts the rest of a flood into the next event instead of flooding operators', async () => {
    const refusals = 60;
    for (let i = 0; i < refusals; i++) agent.send({ kind: 'space/kick', payload: { participant_id: 'operator' } });
    agent.send({ id: 'done', kind: 'chat', payload: { text: 'done' } });
    await operator.next((f) => f.id === 'done');
    const told = operator.received.filter((f) => f.kind === 'system/security-event');
    expect(told.length).toBeGreaterThanOrEqual(SECURITY_EVENT_BURST);
    expect(told.length).toBeLessThan(refusals);
    // A second later by the gateway's clock (only Date is faked: sockets keep their real timers) the bucket has refilled.
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 1_000 });
    const refilled = operator.next((f) => f.kind === 'system/security-event' && (f.payload.suppressed ?? 0) > 0).finally(() => vi.useRealTimers());
    agent.send({ kind: 'space/kick', payload: { participant_id: 'operator' } });
    const next = await refilled;
    expect(told.length + next.payload.suppressed + 1).toBe(refusals + 1);
  });

  it('records a token that authenticates nobody, over the socket or HTTP, and tells operators who cannot see a participant behind it', async () => {
    const refused = await rejectionOf(joinAs(gw, 'not-a-token-of-anyone', 'space=sec'));
    expect(refused).toMatchObject({ status: 401 });
    const told = await operator.kind('system/security-event');
    expect(told.payload).toMatchObject({ offender: 'unauthenticated (127.0.0.1)', error: 'invalid_token' });
    const http = await fetch(gw.httpUrl('/participants/agent/messages?space=sec'), { headers: { Authorization: 'Bearer guessed-token-123456' } });
    expect(http.status).toBe(401);
    // A missing token is not a guess: nothing to record.
    expect((await fetch(gw.httpUrl('/participants/agent/messages?space=sec'))).status).toBe(401);
    expect(gw.audit.query({ space: 'sec', type: 'AUTH_FAILED' }).map((e) => e.details)).toEqual([
      { via: 'websocket', address: '127.0.0.1' },
      { via: 'http', address: '127.0.0.1' },
    ]);
  });
});
