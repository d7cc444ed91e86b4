/** The gateway alone, without Next: for headless spaces, benchmarks and cluster nodes. Same settings as server.ts. */
import { runGatewayServer } from './run-gateway-server';
import { runClusterNode } from './run-cluster-node';

const redisUrl = process.env.MEW_REDIS_URL;
if (redisUrl) await runClusterNode('gateway only', redisUrl);
else await runGatewayServer('gateway only');
