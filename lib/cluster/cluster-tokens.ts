import type { StoredTokens } from '../gateway/persistence/stored-tokens';
import { parseRecordsDocument } from '../gateway/persistence/space-records';
import { clusterKeys } from './cluster-keys';
import { openRedis } from './redis-connection';

/** A space's minted tokens as its owners keep them in Redis (cluster mode), for operator tools such as `npm run tokens`. */
export async function readClusterTokens(redisUrl: string, space: string): Promise<StoredTokens> {
  const redis = openRedis(
    redisUrl,
    { who: 'tokens', impact: "the space's tokens cannot be read until it is back" },
    { lazyConnect: true, maxRetriesPerRequest: 1 },
  );
  try {
    await redis.connect();
    const records = await redis.hget(clusterKeys.meta(space), 'records');
    if (!records) throw new Error(`no records of space "${space}" in Redis yet (has a cluster node served it?)`);
    return parseRecordsDocument(`redis ${clusterKeys.meta(space)} records`, records).tokens;
  } finally {
    redis.disconnect();
  }
}
