/**
 * The app's one server: Next (pages, route handlers, HMR in dev) and the MEW gateway (`/ws` plus its HTTP
 * endpoints) on a single port. Settings: PORT, HOST (127.0.0.1), MEW_SPACE_CONFIG, MEW_DATA_DIR, MEW_START_FRESH=1 (move
 * the data directory's database aside and start a new one); with MEW_REDIS_URL (and MEW_NODE_ID) it is one node of a
 * cluster on that Redis instead.
 */
import next from 'next';
import { gatewayEnv } from './lib/gateway';
import { exitOnSettingsError, runServer } from './lib/host/run-server';

// Next reads this when it starts (below), so it still applies although the imports above run first.
process.env.NEXT_TELEMETRY_DISABLED ??= '1';
const dev = process.env.NODE_ENV !== 'production';
let settings: ReturnType<typeof gatewayEnv>;
try {
  settings = gatewayEnv(process.cwd());
} catch (e) {
  exitOnSettingsError(e);
}
const { host, port } = settings;
const app = next({ dev, hostname: host, port });
await app.prepare();
const handle = app.getRequestHandler();

const serving = {
  fallback: (req: Parameters<typeof handle>[0], res: Parameters<typeof handle>[1]) => void handle(req, res),
  // In dev, Next registers its own upgrade listener (HMR on /_next/hmr) at the first request.
  leaveOtherUpgrades: dev,
};
await runServer(dev ? 'dev' : 'production', serving);
