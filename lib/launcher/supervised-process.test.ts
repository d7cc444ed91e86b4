import { describe, expect, it } from 'vitest';
import { backoffDelay } from '../sdk/backoff';
import { DEFAULT_RESTART_BACKOFF, SupervisedProcess } from './supervised-process';

describe('a supervised process that cannot start', () => {
  it.each([
    ['a missing command', { command: '/nonexistent/mew-agent', cwd: process.cwd() }],
    ['a missing working directory', { command: process.execPath, cwd: '/nonexistent/mew-dir' }],
  ])('with %s says so and is left down, without taking the server with it', async (_, where) => {
    const lines: string[] = [];
    const p = new SupervisedProcess({
      name: 'agent',
      args: ['-e', ''],
      env: process.env,
      restart: 'on-failure',
      backoff: { maxRestarts: 1, windowMs: 60_000, minDelayMs: 10, maxDelayMs: 10 },
      output: (line) => lines.push(line),
      ...where,
    });
    await expect.poll(() => p.status.state, { timeout: 10_000 }).toBe('crashed');
    expect(p.status.lastExit).toMatchObject({ code: null, signal: null });
    expect(lines.join('\n')).toMatch(/could not run .*ENOENT/);
    expect(lines.join('\n')).toContain('could not start');
    await p.stop();
  });
});

describe('a supervised process that keeps crashing', () => {
  it('waits the one backoff between restarts (backoffDelay with its tuning), then is left down', async () => {
    const lines: string[] = [];
    const backoff = { ...DEFAULT_RESTART_BACKOFF, minDelayMs: 20, exponent: 3, maxDelayMs: 100, jitterRatio: 0, maxRestarts: 4 };
    const p = new SupervisedProcess({
      name: 'agent',
      command: process.execPath,
      args: ['-e', 'process.exit(3)'],
      cwd: process.cwd(),
      env: process.env,
      restart: 'always',
      backoff,
      output: (line) => lines.push(line),
    });
    await expect.poll(() => p.status.state, { timeout: 10_000 }).toBe('crashed');
    const waits = lines.flatMap((line) => /restarting in (\d+) ms/.exec(line)?.[1] ?? []).map(Number);
    expect(waits).toEqual([0, 1, 2, 3].map((attempt) => backoffDelay(attempt, backoff)));
    expect(waits).toEqual([20, 60, 100, 100]);
    await p.stop();
  });
});
