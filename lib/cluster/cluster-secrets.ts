import type { Redis } from 'ioredis';
import { newActionKey, newVapidKeys, type ServerSecrets } from '../notify/server-secrets';
import { clusterKeys } from './cluster-keys';

/**
 * The secrets of notifications, one set for the whole cluster: a push subscription made through one node is sent by
 * any later owner, and an action link one owner signed is checked by the next. Each is minted by whichever node
 * needs it first (HSETNX: never replacing one that exists); the VAPID pair is one field, so its halves always match.
 */
export async function loadClusterSecrets(redis: Redis): Promise<ServerSecrets> {
  const key = clusterKeys.notifySecrets();
  const read = () => redis.hmget(key, 'vapid', 'action_token_key');
  let [vapid, actionKey] = await read();
  if (vapid === null || actionKey === null) {
    if (vapid === null) await redis.hsetnx(key, 'vapid', JSON.stringify(newVapidKeys()));
    if (actionKey === null) await redis.hsetnx(key, 'action_token_key', newActionKey());
    [vapid, actionKey] = await read();
  }
  const { publicKey, privateKey } = JSON.parse(vapid!) as ServerSecrets['vapid'];
  return { vapid: { publicKey, privateKey }, actionKey: Buffer.from(actionKey!, 'base64url') };
}
