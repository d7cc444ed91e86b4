/**
 * `npm run tokens -- --space demo [participant]`: prints the tokens the gateway minted for a space (read-only, from
 * MEW_DATA_DIR's database, or from Redis when MEW_REDIS_URL is set), one `id token` line each, or the bare token of
 * one participant (`admin` for the admin token). For operators and scripts; tokens are secrets, so nothing else
 * prints them.
 */
import { parseArgs } from 'node:util';
import { gatewayEnv, PersistenceError, readStoredTokens } from '../lib/gateway';
import { readClusterTokens } from '../lib/cluster/cluster-tokens';

const { values, positionals } = parseArgs({ options: { space: { type: 'string', default: 'demo' } }, allowPositionals: true });
const { dataDir } = gatewayEnv(process.cwd());
try {
  const redisUrl = process.env.MEW_REDIS_URL;
  const tokens = redisUrl ? await readClusterTokens(redisUrl, values.space) : readStoredTokens(dataDir, values.space);
  const all: Record<string, string> = { ...tokens.participants, ...(tokens.admin ? { admin: tokens.admin } : {}) };
  const [wanted] = positionals;
  if (wanted !== undefined) {
    if (!all[wanted]) throw new Error(`no minted token for "${wanted}" in space "${values.space}" (known: ${Object.keys(all).join(', ') || 'none'})`);
    console.log(all[wanted]);
  } else {
    for (const [id, token] of Object.entries(all)) console.log(`${id} ${token}`);
  }
} catch (e) {
  console.error(e instanceof PersistenceError || e instanceof Error ? e.message : e);
  process.exit(1);
}
