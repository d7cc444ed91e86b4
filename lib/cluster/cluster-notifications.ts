import type { Redis } from 'ioredis';
import type { AuditSink } from '../gateway/audit-sink';
import type { Gateway } from '../gateway/gateway';
import type { GatewayDatabase } from '../gateway/persistence/gateway-database';
import { Notifications } from '../notify/notifications';
import { putNotifyRow, type NotifyRow, type NotifyTable } from '../notify/notify-rows';
import { ensureNotifySchema } from '../notify/notify-schema';
import { clusterKeys } from './cluster-keys';
import { loadClusterSecrets } from './cluster-secrets';
import type { FencedWriter } from './fenced-writer';

const NOTIFY_TABLES: readonly NotifyTable[] = ['push_subscriptions', 'used_action_tokens', 'webhooks', 'webhook_deliveries'];

export interface OwnerNotificationsOptions {
  redis: Redis;
  writer: FencedWriter;
  /** The owner's gateway, database and audit sink (the space's only). */
  gateway: Gateway;
  database: GatewayDatabase;
  audit: AuditSink;
  space: string;
  /** The fencing token of this takeover. */
  fence: number;
  /** The owner node's own WebSocket URL: links point to its origin unless MEW_PUBLIC_URL names another. */
  gatewayUrl: string;
}

/** What the owner keeps of its notifications: their HTTP routes, and the way to stop them. */
export type OwnerNotifications = Pick<Notifications, 'routes' | 'close'>;

/**
 * Notifications of an owned space, as a single gateway has them: the space's rows (push subscriptions, used action
 * tokens, webhooks and their delivery log) loaded from its notify hashes into the owner's fresh database, every
 * change of a row written back through the owner's fenced writer (so in the same atomic write as the turn that made
 * it: a used action token together with the decision it carried out), and the cluster's shared secrets. Sends go
 * only while the owner's fence holds, so an owner that stalled past its lease sends nothing once it wakes.
 */
export async function startOwnerNotifications(options: OwnerNotificationsOptions): Promise<OwnerNotifications> {
  const { redis, writer, database, space, fence } = options;
  const [secrets, ...tables] = await Promise.all([loadClusterSecrets(redis), ...NOTIFY_TABLES.map((table) => redis.hgetall(clusterKeys.notify(space, table)))]);
  ensureNotifySchema(database.db);
  database.transaction(() => {
    NOTIFY_TABLES.forEach((table, i) => {
      for (const row of Object.values(tables[i])) putNotifyRow(database.db, table, JSON.parse(row) as NotifyRow);
    });
  });
  let open = true;
  const nodeUrl = new URL(options.gatewayUrl).origin.replace(/^ws/, 'http');
  const notifications = new Notifications(options.gateway, database, options.audit, () => nodeUrl, {
    replica: {
      secrets,
      replicate: (table, key, row) => {
        if (!open) return; // an attempt that was under way when the owner stopped: its outcome is this owner's alone
        if (row) writer.set(clusterKeys.notify(space, table), key, JSON.stringify(row));
        else writer.unset(clusterKeys.notify(space, table), key);
      },
      mayAnnounce: async () => open && !writer.lost && (await redis.get(clusterKeys.fence(space))) === String(fence),
    },
  });
  return {
    routes: notifications.routes,
    close: () => {
      open = false;
      return notifications.close();
    },
  };
}
