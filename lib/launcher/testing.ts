/**
 * Test fixtures for launched participants: a config entry that runs a small script the way the server runs any
 * command, and whether a process still runs. Nothing in the product imports it.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { GatewayServer } from '../host/gateway-server';
import type { LaunchSpec } from './launch-spec';
import { runnerConnectionEnv } from './runner-convention';
import { spaceParticipantsToLaunch } from './space-launcher';

/**
 * A participant's config entry (the space.yaml layout) that runs `source`, a CommonJS script that may require `ws`,
 * with what the server hands it in MEW_TOKEN, MEW_GATEWAY and MEW_SPACE; `extra` adds or overrides fields.
 */
export function scriptParticipant(source: string, extra: Record<string, unknown> = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'mew-launch-'));
  writeFileSync(join(dir, 'participant.cjs'), source);
  return {
    capabilities: [{ kind: 'chat' }],
    command: process.execPath,
    args: ['participant.cjs'],
    cwd: dir,
    env: { ...runnerConnectionEnv(), NODE_PATH: resolve('node_modules') },
    ...extra,
  };
}

/** Whether the process runs: a zombie (ended, not yet reaped by init) does not. Linux. */
export function processRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return !/^\d+ \(.*\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

/** The launch spec and token of each participant a test server may start, across its spaces (`spaceParticipantsToLaunch`). */
export function participantsToLaunch(
  server: Pick<GatewayServer, 'configs' | 'gateway'>,
): { space: string; participantId: string; spec: LaunchSpec; token: string }[] {
  return server.configs.flatMap((config) => {
    const space = server.gateway.spaces.get(config.id);
    return space ? spaceParticipantsToLaunch(config, space) : [];
  });
}
