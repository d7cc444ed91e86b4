import type { Redis } from 'ioredis';
import type { GatewayDatabase } from '../gateway/persistence/gateway-database';
import { putRow, type TableRow } from '../host/change-record';
import type { HostStorage } from '../host/host-storage';
import { clusterKeys } from './cluster-keys';
import type { FencedWriter } from './fenced-writer';
import { streamPages } from './stream-pages';

export interface ClusterHostStorageOptions {
  redis: Redis;
  writer: FencedWriter;
  /** The owner's fresh database, which `load` fills. */
  database: GatewayDatabase;
  space: string;
  /** The fencing token of this takeover. */
  fence: number;
}

/**
 * A cluster owner's storage: each feature table of the space is a Redis hash of rows by key, loaded into the owner's
 * fresh database at takeover, and every change record is written through the owner's fenced writer (so in the same
 * atomic write as the turn that made it: a used action token together with the decision it carried out). Secrets are
 * the cluster's (HSETNX: minted once, never replaced). The host speaks for the space while its fence holds, so an
 * owner that stalled past its lease sends nothing once it wakes.
 */
export function clusterHostStorage({ redis, writer, database, space, fence }: ClusterHostStorageOptions): HostStorage {
  let open = true;
  return {
    load: async (tables) => {
      const rows = await Promise.all(tables.map(async ({ name }) => Object.values(await redis.hgetall(clusterKeys.table(space, name)))));
      const legacy = await legacyRows(redis, space, new Set(tables.map((t) => t.name)));
      database.transaction(() => {
        tables.forEach(({ name }, i) => {
          for (const row of rows[i]) putRow(database.db, name, JSON.parse(row) as TableRow);
        });
        for (const { table, key, row } of legacy) {
          putRow(database.db, table, row);
          writer.set(clusterKeys.table(space, table), key, JSON.stringify(row));
        }
      });
    },
    replicate: ({ table, key, row }) => {
      if (!open) return; // an attempt that was under way when the owner stopped: its outcome is this owner's alone
      if (row) writer.set(clusterKeys.table(space, table), key, JSON.stringify(row));
      else writer.unset(clusterKeys.table(space, table), key);
    },
    secret: async (name, mint) => {
      const key = clusterKeys.secrets();
      const kept = await redis.hget(key, name);
      if (kept !== null) return kept;
      await redis.hsetnx(key, name, mint());
      return (await redis.hget(key, name))!;
    },
    speaksForSpace: async () => open && !writer.lost && (await redis.get(clusterKeys.fence(space))) === String(fence),
    close: () => {
      open = false;
    },
  };
}

const LEGACY_RULE_COLUMNS: Record<string, readonly string[]> = {
  approval_rules: ['space', 'id', 'version', 'data', 'created_by', 'created_at', 'deleted'],
  rule_events: ['space', 'rule_id', 'version', 'event', 'decision', 'proposal_id', 'at'],
};

/**
 * Rows a cluster wrote before feature tables (rules as a stream of positional rows, notifications in `notify:`
 * hashes), for tables whose hash is still empty: written into the hashes by the first owner that loads them.
 */
async function legacyRows(redis: Redis, space: string, tables: ReadonlySet<string>): Promise<{ table: string; key: string; row: TableRow }[]> {
  const found: { table: string; key: string; row: TableRow }[] = [];
  const empty = async (table: string) => tables.has(table) && (await redis.exists(clusterKeys.table(space, table))) === 0;
  for (const table of tables) {
    if (!(await empty(table))) continue;
    for (const [key, row] of Object.entries(await redis.hgetall(clusterKeys.legacyNotify(space, table))))
      found.push({ table, key, row: JSON.parse(row) as TableRow });
  }
  const rulesEmpty = (await empty('approval_rules')) && (await empty('rule_events'));
  if (rulesEmpty) {
    for await (const page of streamPages(redis, clusterKeys.legacyRules(space))) {
      for (const [, fields] of page) {
        const table = fields[1];
        const values = JSON.parse(fields[3]) as (string | number)[];
        const row = Object.fromEntries(LEGACY_RULE_COLUMNS[table].map((column, i) => [column, values[i]])) as TableRow;
        const key = table === 'approval_rules' ? `${row.id}/${row.version}` : `${row.rule_id}/${row.version}/${row.event}/${row.proposal_id}`;
        found.push({ table, key, row });
      }
    }
  }
  return found;
}
