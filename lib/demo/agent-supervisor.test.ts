import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { MEWParticipant } from '../sdk/mew-participant';
import { startDemoAgents, type DemoAgents, type SupervisedAgent } from './agent-supervisor';
import { DEMO_SPACE, control, startDemoTestSpace, type DemoTestSpace } from './testing';

/** Children are real processes that load TypeScript through tsx (seconds each on a busy machine): give them time. */
const CHILD_TIMEOUT_MS = 30_000;

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('agent supervisor', () => {
  let space: DemoTestSpace;
  let human: MEWParticipant;
  let demo: DemoAgents | undefined;
  const lines: string[] = [];

  beforeEach(async () => {
    space = await startDemoTestSpace();
    human = await space.connect('human');
  });
  afterEach(async () => {
    await demo?.stop();
    await space.close();
  });

  const present = () => human.participants.map((p) => p.id).sort();
  const agent = (name: string) => demo!.agents.find((a) => a.name === name)!;
  const start = () =>
    (demo = startDemoAgents({
      gatewayUrl: space.gw.wsUrl(),
      space: DEMO_SPACE,
      tokens: space.tokens,
      dataDir: space.dataDir,
      paceMs: 200,
      restart: { initialDelayMs: 50 },
      output: (line) => lines.push(line),
    }));

  it('runs each agent as a child process, restarts crashes and restart requests, and stop() ends them all', { timeout: 4 * CHILD_TIMEOUT_MS }, async () => {
    start();
    expect(demo!.agents.map((a) => a.name)).toEqual(['files', 'scribe', 'auditor']); // not the human
    await expect.poll(present, { timeout: CHILD_TIMEOUT_MS }).toEqual(['auditor', 'files', 'scribe']);
    await expect.poll(() => lines).toContain('[scribe] connected to space "demo" as scribe');
    expect(lines.join('\n')).not.toContain(space.tokens.scribe);

    // A crash (killed by a signal) is restarted after the backoff.
    const scribe = agent('scribe');
    const crashedPid = scribe.pid!;
    process.kill(crashedPid, 'SIGKILL');
    await expect.poll(() => [scribe.restarts, scribe.state], { timeout: CHILD_TIMEOUT_MS }).toEqual([1, 'running']);
    expect(scribe.pid).not.toBe(crashedPid);
    expect(scribe.lastExit).toMatchObject({ code: null, signal: 'SIGKILL' });

    // participant/restart: the agent exits with the restart code and comes back at once, rejoined.
    const auditor = agent('auditor');
    control(human, 'auditor', 'participant/restart');
    await expect.poll(() => auditor.restarts, { timeout: CHILD_TIMEOUT_MS }).toBe(1);
    expect(auditor.lastExit).toMatchObject({ code: 75, signal: null });
    expect(lines).toContain('[auditor] restart requested: restarting now');

    // A clean exit (SIGTERM from outside) is left down.
    const files = agent('files');
    process.kill(files.pid!, 'SIGTERM');
    await expect.poll(() => files.state, { timeout: CHILD_TIMEOUT_MS }).toBe('exited');
    expect(files.lastExit).toMatchObject({ code: 0, signal: null });

    await expect.poll(present, { timeout: CHILD_TIMEOUT_MS }).toEqual(['auditor', 'scribe']);
    const pids = demo!.agents.map((a) => a.pid).filter((pid): pid is number => pid !== undefined);
    expect(pids).toHaveLength(2);
    await demo!.stop();
    expect(demo!.agents.map((a: SupervisedAgent) => a.state)).toEqual(['exited', 'stopped', 'stopped']);
    expect(pids.filter(isAlive)).toEqual([]);
    await expect.poll(present).toEqual([]);
  });

  it('starts nothing for an agent without a token, and says so', () => {
    demo = startDemoAgents({ gatewayUrl: space.gw.wsUrl(), space: DEMO_SPACE, tokens: {}, dataDir: space.dataDir, output: (line) => lines.push(line) });
    expect(demo.agents).toEqual([]);
    expect(lines).toContain('[scribe] no token for this participant: not started');
  });
});
