import type { RunningFeature, SpaceFeature } from '../host/space-feature';
import type { RunningToolPins } from '../tool-pins/tool-pins-feature';
import { Notifications, type NotifyOptions } from './notifications';
import { NOTIFY_TABLES } from './notify-schema';
import { loadServerSecrets } from './server-secrets';

/** Notifications as they run for one space (tests wait for `idle`). */
export type RunningNotifications = RunningFeature & Pick<Notifications, 'idle' | 'routes'>;

/**
 * Web Push and webhooks you can act on, for each space a host serves: its tables, its routes and the sends, signed
 * with the deployment's secrets; sends go only while the host speaks for the space (a cluster owner whose lease holds).
 */
export function notificationsFeature(options: NotifyOptions = {}): SpaceFeature {
  return {
    name: 'notifications',
    tables: NOTIFY_TABLES,
    async start(context): Promise<RunningNotifications> {
      const { storage } = context;
      const notifications = new Notifications(
        {
          space: context.space,
          gateway: context.gateway,
          database: context.database,
          audit: context.audit,
          secrets: await loadServerSecrets(storage.secret),
          replicate: storage.replicate,
          mayAnnounce: storage.speaksForSpace,
          listeningUrl: context.httpUrl,
          toolChanged: (participant, tool) => context.feature<RunningToolPins>('tool-pins')?.changed(participant, tool) === true,
        },
        options,
      );
      return { routes: notifications.routes, idle: () => notifications.idle(), stop: () => notifications.close() };
    },
  };
}
