import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { joinAs, spaceConfig, startTestGateway, tokenOf, type TestGateway } from './testing';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway(spaceConfig('room', { alice: [{ kind: 'chat' }] }));
});
afterAll(() => gw.close());

describe('the gateway’s listener', () => {
  it('takes WebSocket upgrades on /ws and on / (where the reference implementation’s clients dial), and no other path', async () => {
    const root = await joinAs({ wsUrl: (query) => `ws://127.0.0.1:${gw.port}/?${query}` }, tokenOf('alice'), 'space=room');
    expect(root.welcome?.payload.you.id).toBe('alice');
    root.close();
    const elsewhere = new WebSocket(`ws://127.0.0.1:${gw.port}/elsewhere?space=room`, { headers: { Authorization: `Bearer ${tokenOf('alice')}` } });
    const failed = await new Promise<string>((resolve) => {
      elsewhere.once('open', () => resolve('open'));
      elsewhere.once('error', (error) => resolve(error.message));
    });
    expect(failed).toMatch(/socket hang up|closed before the connection was established/);
  });
});
