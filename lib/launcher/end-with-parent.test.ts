import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { SupervisedProcess } from './supervised-process';
import { processRunning } from './testing';

const SUPERVISED_PROCESS_PATH = fileURLToPath(new URL('./supervised-process.ts', import.meta.url));
/** Prints its pid, then runs until signalled, ignoring its IPC channel as most programs would. */
const WAITER = ['-e', 'console.log(`pid ${process.pid}`); setInterval(() => {}, 1000)'];

describe('a supervised process that ends with its parent', () => {
  const started: SupervisedProcess[] = [];
  afterEach(async () => {
    await Promise.all(started.splice(0).map((p) => p.stop()));
  });

  it("keeps the command's own pid and exit status, so supervision works as without it", async () => {
    const lines: string[] = [];
    const p = new SupervisedProcess({
      name: 'waiter',
      command: process.execPath,
      args: WAITER,
      cwd: process.cwd(),
      env: process.env,
      restart: 'on-failure',
      backoff: { minDelayMs: 10, maxDelayMs: 10 },
      endWithParent: true,
      output: (line) => lines.push(line),
    });
    started.push(p);
    await expect.poll(() => lines, { timeout: 10_000 }).toContain(`pid ${p.status.pid}`);
    const first = p.status.pid!;
    p.kill('SIGKILL');
    await expect.poll(() => p.status.restarts, { timeout: 10_000 }).toBe(1);
    expect(p.status.lastExit).toMatchObject({ code: null, signal: 'SIGKILL' });
    await expect.poll(() => lines, { timeout: 10_000 }).toContain(`pid ${p.status.pid}`);
    expect(processRunning(first)).toBe(false);
    await p.stop();
    expect(p.status).toMatchObject({ state: 'stopped', lastExit: { signal: 'SIGTERM' } });
  });

  it('ends the child when its parent is killed with SIGKILL', async () => {
    const parentSource = `
      const { SupervisedProcess } = await import(${JSON.stringify(SUPERVISED_PROCESS_PATH)});
      new SupervisedProcess({ name: 'waiter', command: process.execPath, args: ${JSON.stringify(WAITER)}, cwd: process.cwd(), env: process.env, restart: 'always', endWithParent: true, output: (line) => console.log(line) });
    `;
    const parent = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', parentSource], { stdio: ['ignore', 'pipe', 'inherit'] });
    const [chunk] = (await once(parent.stdout!, 'data')) as [Buffer];
    const child = Number(/pid (\d+)/.exec(String(chunk))![1]);
    expect(processRunning(child)).toBe(true);
    parent.kill('SIGKILL');
    await expect.poll(() => processRunning(child), { timeout: 5_000, interval: 50 }).toBe(false);
  });
});
