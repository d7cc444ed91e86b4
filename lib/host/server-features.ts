import { budgetsFeature } from '../budgets/budgets-feature';
import { launcherFeature, type LauncherFeatureOptions } from '../launcher/launcher-feature';
import { mcpEndpointFeature } from '../mcp-server/mcp-endpoint-feature';
import type { NotifyOptions } from '../notify/notifications';
import { notificationsFeature } from '../notify/notifications-feature';
import { rulesFeature } from '../rules/rules-feature';
import { toolPinsFeature } from '../tool-pins/tool-pins-feature';
import type { SpaceFeature } from './space-feature';

export interface ServerFeatureOptions {
  notify?: NotifyOptions;
  /** Runs each space's launched participants, demo agents and observers; omitted, the server runs none (tests). */
  launch?: LauncherFeatureOptions;
}

/**
 * What every space of this server runs beside the gateway core, in start order: the one list a single process and
 * a cluster owner both hand to `SpaceHost.start`.
 */
export function serverFeatures(options: ServerFeatureOptions = {}): SpaceFeature[] {
  return [toolPinsFeature(), rulesFeature(), budgetsFeature(), notificationsFeature(options.notify), launcherFeature(options.launch), mcpEndpointFeature()];
}
