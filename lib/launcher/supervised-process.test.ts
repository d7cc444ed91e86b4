import { describe, expect, it } from 'vitest';
import { SupervisedProcess } from './supervised-process';

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
      backoff: { maxRestarts: 1, windowMs: 60_000, initialDelayMs: 10, maxDelayMs: 10 },
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
