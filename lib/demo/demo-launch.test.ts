import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { loadSpaceConfig } from '../gateway/space-config';
import { LAUNCH_SECTION } from '../launcher/launch-config';
import { SpaceLauncher, spaceParticipantsToLaunch } from '../launcher/space-launcher';
import type { MEWParticipant } from '../sdk/mew-participant';
import { DEMO_SPACE, control, startDemoTestSpace, type DemoTestSpace } from './testing';

/** The demo is a space config: its live participants are its `bridge:` and `command:` entries, run as any config's are. */
const DEMO_CONFIG = loadSpaceConfig(fileURLToPath(new URL('./demo-space.yaml', import.meta.url)), { sections: [LAUNCH_SECTION], env: {} });

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

describe('the demo space under the server’s launcher', () => {
  let space: DemoTestSpace;
  let human: MEWParticipant;
  let launcher: SpaceLauncher;

  beforeEach(async () => {
    space = await startDemoTestSpace();
    human = await space.connect('human');
    const env = { ...process.env, MEW_DEMO_PACE_MS: '200' };
    launcher = new SpaceLauncher({ gatewayUrl: space.gw.wsUrl(), port: space.gw.port, dataDir: space.dataDir, backoff: { minDelayMs: 50 }, env });
  });
  afterEach(async () => {
    await launcher.stopAll();
    await space.close();
  });

  const present = () => human.participants.map((p) => p.id).sort();
  const status = (id: string) => launcher.status(DEMO_SPACE, id)!;

  it('runs each participant as a child process, restarts crashes and restart requests, and stopAll() ends them all', {
    timeout: 4 * CHILD_TIMEOUT_MS,
  }, async () => {
    const specs = spaceParticipantsToLaunch(DEMO_CONFIG, space.gw.gateway.spaces.get(DEMO_SPACE)!);
    // Not the human; the assistant (an `agent:` entry) is launched too, and says it is not configured without an endpoint.
    expect(specs.map((s) => s.participantId)).toEqual(['files', 'scribe', 'auditor', 'assistant']);
    for (const { participantId, spec, token } of specs) launcher.add(DEMO_SPACE, participantId, spec, token);
    // With the rule supervisor the space's host runs (the demo has timeouts to apply, so it joins at once).
    await expect.poll(present, { timeout: CHILD_TIMEOUT_MS }).toEqual(['auditor', 'files', 'rules', 'scribe']);
    await expect.poll(() => status('scribe').tail.join('\n')).toContain('connected to space "demo" as scribe');
    expect(status('scribe').tail.join('\n')).not.toContain(space.tokens.scribe);
    await expect.poll(() => status('files').tail.join('\n')).toMatch(/ready: secure-filesystem-server with \d+ tools/);

    // A crash (killed by a signal) is restarted after the backoff.
    const crashedPid = status('scribe').pid!;
    process.kill(crashedPid, 'SIGKILL');
    await expect.poll(() => [status('scribe').restarts, status('scribe').state], { timeout: CHILD_TIMEOUT_MS }).toEqual([1, 'running']);
    expect(status('scribe').pid).not.toBe(crashedPid);
    expect(status('scribe').lastExit).toMatchObject({ code: null, signal: 'SIGKILL' });

    // participant/restart: the agent exits with the restart code and comes back at once, rejoined.
    control(human, 'auditor', 'participant/restart');
    await expect.poll(() => status('auditor').restarts, { timeout: CHILD_TIMEOUT_MS }).toBe(1);
    expect(status('auditor').lastExit).toMatchObject({ code: 75, signal: null });
    expect(status('auditor').tail).toContain('restart requested: restarting now');

    // A clean exit (SIGTERM from outside) is left down: the bridge stops its MCP server and leaves.
    process.kill(status('files').pid!, 'SIGTERM');
    await expect.poll(() => status('files').state, { timeout: CHILD_TIMEOUT_MS }).toBe('exited');
    expect(status('files').lastExit).toMatchObject({ code: 0, signal: null });

    await expect.poll(present, { timeout: CHILD_TIMEOUT_MS }).toEqual(['auditor', 'rules', 'scribe']);
    const pids = ['scribe', 'auditor'].map((id) => status(id).pid!);
    await launcher.stopAll();
    expect(['files', 'scribe', 'auditor'].map((id) => status(id).state)).toEqual(['exited', 'stopped', 'stopped']);
    expect(pids.filter(isAlive)).toEqual([]);
    await expect.poll(present).toEqual(['rules']);
  });
});
