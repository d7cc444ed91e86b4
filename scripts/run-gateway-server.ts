import { join } from 'node:path';
import {
  createGatewayServer,
  DATABASE_FILE,
  gatewayEnv,
  PersistenceError,
  SettingsError,
  SpaceConfigError,
  type GatewayServer,
  type GatewayServerOptions,
} from '../lib/gateway';
import { superviseGatewaySpaces } from '../lib/automation/space-supervision';
import { SpaceLauncher } from '../lib/launcher/space-launcher';
import { demoSettings, reportCrash, startSpaceProcesses } from '../lib/launcher/space-processes';
import type { EnvelopeLogObserver } from '../lib/launcher/envelope-log-observer';
import { listenOrExit } from './listen-or-exit';
import { signInLine } from './sign-in-line';

/**
 * Starts the gateway server from the environment (PORT, HOST, MEW_SPACE_CONFIG, MEW_DATA_DIR, MEW_START_FRESH), starts
 * the demo space's agents when that space is served, prints where it listens and how to sign in, and shuts everything
 * down cleanly on SIGINT/SIGTERM. A bad space config or a data directory it will not trust (a missing, emptied or
 * swapped database) ends the process with its one-line message, not a stack.
 */
export async function runGatewayServer(mode: string, extra: Pick<GatewayServerOptions, 'fallback' | 'leaveOtherUpgrades'> = {}): Promise<GatewayServer> {
  let env: ReturnType<typeof gatewayEnv>;
  let gatewayServer: GatewayServer;
  try {
    env = gatewayEnv(process.cwd());
    gatewayServer = createGatewayServer({ ...env, ...extra });
  } catch (e) {
    if (!(e instanceof SpaceConfigError || e instanceof PersistenceError || e instanceof SettingsError)) throw e;
    console.error(`Cannot start: ${e.message}`);
    process.exit(1);
  }
  const port = await listenOrExit(gatewayServer.listen(env.port, env.host), env.host, env.port);
  const base = `${env.host}:${port}`;
  const lines = [`MEW Dashboard (${mode}) on http://${base}  ·  gateway ws://${base}/ws`];
  for (const space of gatewayServer.gateway.spaces.values()) {
    lines.push(`  space "${space.id}": ${[...space.participants.keys()].join(', ')}`);
    const signIn = signInLine(base, space);
    if (signIn) lines.push(signIn);
  }
  lines.push(`  minted tokens, state, history and audit: ${join(env.dataDir, DATABASE_FILE)} (print tokens: npm run tokens -- --space <id>)`);
  console.log(lines.join('\n'));

  const launcher = new SpaceLauncher({ gatewayUrl: `ws://${base}/ws`, port, dataDir: env.dataDir, onChange: reportCrash });
  gatewayServer.useProcesses(launcher);
  // Each space's launched participants, the demo's agents and the observers (`auto_connect: true`).
  const observers: EnvelopeLogObserver[] = [];
  const demo = demoSettings(process.argv, process.env);
  for (const config of gatewayServer.configs) {
    const space = gatewayServer.gateway.spaces.get(config.id);
    if (!space) continue;
    observers.push(
      ...startSpaceProcesses({ config, space, launcher, gatewayUrl: `ws://${base}/ws`, dataDir: env.dataDir, ...demo, print: (line) => console.log(line) }),
    );
  }

  // Every space gets a supervisor applying its approval rules, recompiled whenever they change (unless its config
  // turns it off: `automation.supervisor: false`).
  const supervisors = superviseGatewaySpaces(gatewayServer, `ws://${base}/ws`, (space, participant, line) =>
    console.error(`[${space}/${participant}] ${line}`),
  );
  for (const [space, { participant }] of supervisors.spaces) console.log(`  ${space}/${participant}: applies the space's approval rules`);

  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      void (async () => {
        supervisors.stop();
        await Promise.all(observers.map((observer) => observer.stop()));
        await launcher.stopAll();
        await gatewayServer.close();
        process.exit(0);
      })();
    });
  }
  return gatewayServer;
}
