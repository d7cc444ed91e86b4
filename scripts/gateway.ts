/** The gateway alone, without Next: for headless spaces and benchmarks. Same settings as server.ts. */
import { runGatewayServer } from './run-gateway-server';

await runGatewayServer('gateway only');
