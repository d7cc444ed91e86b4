import { join } from 'node:path';
import { createGatewayServer, gatewayEnv, SpaceConfigError, type GatewayServer, type GatewayServerOptions } from '../lib/gateway';

/**
 * Starts the gateway server from the environment (PORT, HOST, MEW_SPACE_CONFIG, MEW_DATA_DIR), prints where it
 * listens, and closes it cleanly on SIGINT/SIGTERM. A bad space config ends the process with its message, not a stack.
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
    if (!(e instanceof SpaceConfigError)) throw e;
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
  lines.push(`  minted tokens (if any): ${join(env.dataDir, '<space>', 'tokens.json')}`);
  console.log(lines.join('\n'));
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => void gatewayServer.close().then(() => process.exit(0)));
  }
  return gatewayServer;
}
