import { join } from 'node:path';
import { createGatewayServer, DATABASE_FILE, gatewayEnv, PersistenceError, SpaceConfigError, type GatewayServer, type GatewayServerOptions } from '../lib/gateway';
import { superviseSpace, type SpaceSupervision } from '../lib/automation/space-supervision';
import { demoLaunchSpecs } from '../lib/demo';
import { participantsToLaunch, SpaceLauncher } from '../lib/launcher/space-launcher';
import { EnvelopeLogObserver } from '../lib/launcher/envelope-log-observer';
import type { SpaceConfig } from '../lib/gateway/space-config';

/** The space whose agents the server runs itself (lib/demo/demo-space.yaml). */
const DEMO_SPACE_ID = 'demo';

/** `--demo off` (or MEW_DEMO=off) serves the demo space without starting its agents. */
function demoEnabled(argv: string[], env: NodeJS.ProcessEnv): boolean {
  const i = argv.indexOf('--demo');
  const flag = i >= 0 ? argv[i + 1] : argv.find((a) => a.startsWith('--demo='))?.slice('--demo='.length);
  return (flag ?? env.MEW_DEMO ?? 'on') !== 'off';
}

/**
 * Starts the gateway server from the environment (PORT, HOST, MEW_SPACE_CONFIG, MEW_DATA_DIR), starts the demo
 * space's agents when that space is served, prints where it listens and how to sign in, and shuts everything
 * down cleanly on SIGINT/SIGTERM. A bad space config ends the process with its message, not a stack.
 */
export async function runGatewayServer(
  mode: string,
  extra: Pick<GatewayServerOptions, 'fallback' | 'leaveOtherUpgrades'> = {},
): Promise<GatewayServer> {
  const env = gatewayEnv(process.cwd());
  let gatewayServer: GatewayServer;
  try {
    gatewayServer = createGatewayServer({ ...env, ...extra });
  } catch (e) {
    if (!(e instanceof SpaceConfigError || e instanceof PersistenceError)) throw e;
    console.error(`Cannot start: ${e.message}`);
    process.exit(1);
  }
  const port = await gatewayServer.listen(env.port, env.host);
  const base = `${env.host}:${port}`;
  const lines = [`MEW Dashboard (${mode}) on http://${base}  ·  gateway ws://${base}/ws`];
  for (const space of gatewayServer.gateway.spaces.values()) {
    lines.push(`  space "${space.id}": ${[...space.participants.keys()].join(', ')}`);
    // Like a notebook server: the one place a token is printed, so the person who started it can sign in.
    // It travels in the URL fragment, which browsers never send to the server.
    if (space.signIn) {
      lines.push(`  sign in as ${space.signIn.participantId}: http://${base}/spaces/${encodeURIComponent(space.id)}#token=${space.signIn.token}`);
    }
  }
  lines.push(`  minted tokens, state, history and audit: ${join(env.dataDir, DATABASE_FILE)} (print tokens: npm run tokens -- --space <id>)`);
  console.log(lines.join('\n'));

  const launcher = new SpaceLauncher({
    gatewayUrl: `ws://${base}/ws`,
    port,
    dataDir: env.dataDir,
    onChange: (space, id, status) => {
      if (status.state === 'crashed') console.error(`[${space}/${id}] crashed (exit ${status.lastExit?.code ?? status.lastExit?.signal}); log: ${status.logFile}`);
    },
  });
  gatewayServer.useProcesses(launcher);
  const demoOn = demoEnabled(process.argv, process.env);
  for (const { space, participantId, spec, token } of participantsToLaunch(gatewayServer)) {
    if (space === DEMO_SPACE_ID && !demoOn) continue;
    launcher.add(space, participantId, spec, token);
    const how = spec.notConfigured ? `not started (${spec.notConfigured})` : spec.autoStart ? 'started' : 'ready to start (auto_start: false)';
    console.log(`  ${space}/${participantId}: ${how} (log: ${launcher.status(space, participantId)!.logFile})`);
  }

  const demo = gatewayServer.gateway.spaces.get(DEMO_SPACE_ID);
  if (demo && demoOn) {
    const tokens = demo.services.records.mintedTokens();
    const paceMs = process.env.MEW_DEMO_PACE_MS ? Number(process.env.MEW_DEMO_PACE_MS) : undefined;
    for (const { participantId, spec } of demoLaunchSpecs({ space: DEMO_SPACE_ID, dataDir: env.dataDir, paceMs })) {
      if (tokens[participantId]) launcher.add(DEMO_SPACE_ID, participantId, spec, tokens[participantId]);
      else console.error(`  demo participant ${participantId} has no token: not started`);
    }
    console.log(`  demo agents started (logs: ${join(env.dataDir, DEMO_SPACE_ID, 'logs')})`);
  }
  /** A participant's token: the config's first, else the one the gateway minted. */
  const tokenOf = (config: SpaceConfig, id: string) =>
    config.participants.find((p) => p.id === id)?.tokens?.[0] ?? gatewayServer.gateway.spaces.get(config.id)?.services.records.mintedTokens()[id];

  // The reference's observers (`auto_connect: true`): connected by the server, logging what they receive.
  const observers: EnvelopeLogObserver[] = [];
  for (const config of gatewayServer.configs) {
    for (const { id, observer } of config.participants) {
      const token = tokenOf(config, id);
      if (!observer || !token) continue;
      const file = observer.outputLog ?? join(env.dataDir, config.id, 'logs', `${id}.envelopes.jsonl`);
      const started = new EnvelopeLogObserver({ gateway: `ws://${base}/ws`, space: config.id, token, file });
      observers.push(started);
      void started.start().catch((error: Error) => console.error(`[${config.id}/${id}] observer could not join: ${error.message}`));
      console.log(`  ${config.id}/${id}: observer, logging what it receives to ${file}`);
    }
  }

  // Each space that names a supervisor gets one applying its approval rules, recompiled whenever they change.
  const supervisors = new Map<string, SpaceSupervision>();
  for (const config of gatewayServer.configs) {
    const supervisorId = config.supervisor;
    const token = supervisorId && tokenOf(config, supervisorId);
    if (!gatewayServer.gateway.spaces.has(config.id) || !token) continue;
    supervisors.set(
      config.id,
      superviseSpace({
        gatewayUrl: `ws://${base}/ws`,
        config,
        token,
        records: gatewayServer.rules(config.id),
        audit: gatewayServer.audit,
        log: (line) => console.error(`[${config.id}/${supervisorId}] ${line}`),
      }),
    );
    console.log(`  ${config.id}/${supervisorId}: applies the space's approval rules`);
  }
  gatewayServer.onRulesChanged((space) => supervisors.get(space)?.reload());

  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      void (async () => {
        for (const supervisor of supervisors.values()) supervisor.stop();
        await Promise.all(observers.map((observer) => observer.stop()));
        await launcher.stopAll();
        await gatewayServer.close();
        process.exit(0);
      })();
    });
  }
  return gatewayServer;
}
