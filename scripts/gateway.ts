/** The gateway alone, without Next: for headless spaces, benchmarks and cluster nodes. Same settings as server.ts. */
import { runServer } from '../lib/host/run-server';

await runServer('gateway only');
