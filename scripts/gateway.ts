/** The gateway alone, without Next: for headless spaces, benchmarks and cluster nodes. Same settings as server.ts. */
import { runGatewayServer } from './run-gateway-server';

// Cluster code (and ioredis with it) is loaded only by a cluster node.
const redisUrl = process.env.MEW_REDIS_URL;
if (redisUrl) await (await import('./run-cluster-node')).runClusterNode('gateway only', redisUrl);
else await runGatewayServer('gateway only');
