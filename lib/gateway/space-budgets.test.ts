import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { joinAs, spaceConfig, startTestGateway, tokenOf, type Frame, type TestClient, type TestGateway } from './testing';

const AGENT_CAPABILITIES = [{ kind: 'chat' }, { kind: 'participant/status' }, { kind: 'participant/compact-done' }];

/** A space with an operator (`boss`), a bystander and an agent whose config gives it `budget`. */
function budgetSpace(budget: Record<string, number>) {
  const config = spaceConfig('budget', { boss: [{ kind: '*' }], watcher: [{ kind: 'chat' }], agent: AGENT_CAPABILITIES });
  return { ...config, participants: { ...config.participants, agent: { ...config.participants.agent, budget } } };
}

const status = (payload: Record<string, unknown>) => ({ kind: 'participant/status', payload: { messages_in_context: 1, ...payload } });
const fromGateway = (kind: string) => (f: Frame) => f.kind === kind && f.from === 'system:gateway';

describe('budget guards enforced by the gateway', () => {
  let gw: TestGateway;
  let boss: TestClient;
  let watcher: TestClient;
  let agent: TestClient;
  const start = async (budget: Record<string, number>) => {
    gw = await startTestGateway(budgetSpace(budget));
    [boss, watcher, agent] = await Promise.all(['boss', 'watcher', 'agent'].map((id) => joinAs(gw, tokenOf(id), 'space=budget')));
  };
  /** Sends a status and waits until everyone saw it, so the gateway has acted on it. */
  const report = async (payload: Record<string, unknown>) => {
    agent.send(status(payload));
    await boss.next((f) => f.kind === 'participant/status' && f.from === 'agent');
  };
  const audited = (...type: string[]) => gw.audit.query({ space: 'budget', type });
  afterEach(() => gw.close());

  describe('a token budget from the config', () => {
    beforeEach(() => start({ tokens: 10_000 }));

    it('warns once at 80 %, and at 100 % pauses the agent as the gateway, tells everyone, asks it to compact, and refuses its work', async () => {
      await report({ total_tokens: 5_000, tokens: 9_999 });
      expect(audited('BUDGET_WARNING')).toEqual([]);
      await report({ total_tokens: 8_200 });
      await report({ total_tokens: 8_500 });
      expect(audited('BUDGET_WARNING')).toEqual([
        expect.objectContaining({
          actor: 'system:gateway',
          subject: 'agent',
          details: expect.objectContaining({ budget_tokens: 10_000, spent_tokens: 8_200 }),
        }),
      ]);
      expect(agent.received.some(fromGateway('participant/pause'))).toBe(false);

      agent.send(status({ total_tokens: 10_000 }));
      for (const client of [boss, watcher, agent]) {
        const pause = await client.next(fromGateway('participant/pause'));
        expect(pause).toMatchObject({ to: ['agent'], payload: { reason: 'budget_exhausted: 10 000 of 10 000 tokens' } });
        expect(pause.payload.timeout_seconds).toBeUndefined();
        expect(await client.next(fromGateway('participant/compact'))).toMatchObject({ to: ['agent'], payload: { reason: 'budget_exhausted' } });
      }
      agent.send({ id: 'more-work', kind: 'chat', payload: { text: 'one more thing' } });
      expect(await agent.next((f) => f.kind === 'system/error')).toMatchObject({
        correlation_id: ['more-work'],
        payload: { error: 'participant_paused', paused_by: 'system:gateway' },
      });
      const [exceeded] = audited('BUDGET_EXCEEDED');
      expect(exceeded).toMatchObject({ actor: 'system:gateway', subject: 'agent', details: { spent_tokens: 10_000, ratio: 1 } });
      expect(audited('PARTICIPANT_PAUSED')).toEqual([
        expect.objectContaining({
          actor: 'system:gateway',
          subject: 'agent',
          envelope_id: exceeded.envelope_id,
          details: { reason: 'budget_exhausted: 10 000 of 10 000 tokens' },
        }),
      ]);
    });

    it('does not pause again while the budget stays the same: the paused agent’s statuses pass, and after a resume it works on', async () => {
      await report({ total_tokens: 12_000 });
      await boss.next(fromGateway('participant/pause'));
      await report({ total_tokens: 13_000, status: 'paused' });
      boss.send({ kind: 'participant/resume', to: ['agent'], payload: {} });
      await agent.next((f) => f.kind === 'participant/resume');
      await report({ total_tokens: 14_000, status: 'active' });
      agent.send({ kind: 'chat', payload: { text: 'back at it' } });
      expect((await boss.next((f) => f.kind === 'chat' && f.from === 'agent')).payload.text).toBe('back at it');
      expect(boss.received.filter(fromGateway('participant/pause'))).toEqual([]);
      expect(audited('BUDGET_EXCEEDED', 'BUDGET_WARNING').map((e) => e.type)).toEqual(['BUDGET_WARNING', 'BUDGET_EXCEEDED']);
    });

    it('counts the context in use (`tokens`) when the agent reports no total_tokens', async () => {
      await report({ tokens: 10_500, max_tokens: 128_000 });
      expect((await boss.next(fromGateway('participant/pause'))).payload.reason).toBe('budget_exhausted: 10 500 of 10 000 tokens');
    });
  });

  it('holds a money budget against the cost the agent reports', async () => {
    await start({ usd: 1 });
    await report({ total_tokens: 1_000_000, cost_usd: 0.85 });
    expect(audited('BUDGET_WARNING')).toHaveLength(1);
    expect(boss.received.some(fromGateway('participant/pause'))).toBe(false);
    agent.send(status({ total_tokens: 1_000_000, cost_usd: 1.02 }));
    expect((await watcher.next(fromGateway('participant/pause'))).payload.reason).toBe('budget_exhausted: $1.02 of $1.00');
  });

  it('prices reported tokens when the agent reports no cost', async () => {
    await start({ usd: 0.5, price_per_1k_tokens_usd: 0.05 });
    await report({ total_tokens: 9_000 });
    expect(audited('BUDGET_WARNING')).toEqual([expect.objectContaining({ details: expect.objectContaining({ spent_usd: 0.45 }) })]);
    agent.send(status({ total_tokens: 10_000 }));
    expect((await watcher.next(fromGateway('participant/pause'))).payload.reason).toBe('budget_exhausted: $0.50 of $0.50');
  });
});
