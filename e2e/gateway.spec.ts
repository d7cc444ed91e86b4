import { expect, test } from '@playwright/test';

import { demoToken } from './fixtures/space';

test('the home page shows the gateway online with the demo space', async ({ page }) => {
  await page.goto('/');
  await expect(page.getByRole('status')).toHaveText('online');
  await expect(page.getByRole('cell', { name: 'demo' })).toBeVisible();
});

test('a browser joins the gateway with its token as a subprotocol and sees its own echo', async ({ page }) => {
  await page.goto('/');
  const token = demoToken('human');
  const result = await page.evaluate(async (token) => {
    const ws = new WebSocket(`ws://${location.host}/ws?space=demo`, ['mew.v0.4', `mew.bearer.${token}`]);
    const frames: { kind: string; from: string; payload: Record<string, unknown> }[] = [];
    await new Promise<void>((resolve, reject) => {
      ws.onmessage = (e) => {
        const frame = JSON.parse(e.data as string);
        frames.push(frame);
        if (frame.kind === 'system/welcome') ws.send(JSON.stringify({ kind: 'chat', payload: { text: 'hello from chromium' } }));
        if (frame.kind === 'chat') resolve();
      };
      ws.onerror = () => reject(new Error('socket error'));
      setTimeout(() => reject(new Error('timeout')), 5000);
    });
    ws.close();
    return { protocol: ws.protocol, frames };
  }, token);
  expect(result.protocol).toBe('mew.v0.4');
  expect(result.frames[0]).toMatchObject({ kind: 'system/welcome', payload: { you: { id: 'human' } } });
  expect(result.frames.at(-1)).toMatchObject({ kind: 'chat', from: 'human', payload: { text: 'hello from chromium' } });
});

test('a browser with a wrong token is told why and closed with 4401', async ({ page }) => {
  await page.goto('/');
  const outcome = await page.evaluate(
    () =>
      new Promise<{ error?: string; code: number }>((resolve) => {
        let error: string | undefined;
        const ws = new WebSocket(`ws://${location.host}/ws?space=demo`, ['mew.v0.4', 'mew.bearer.wrong-token-000000000']);
        ws.onmessage = (e) => (error = JSON.parse(e.data as string).payload?.error);
        ws.onclose = (e) => resolve({ error, code: e.code });
      }),
  );
  expect(outcome).toEqual({ error: 'invalid_token', code: 4401 });
});
