import { budgetsFeature } from '../budgets/budgets-feature';
import { launcherFeature, type LauncherFeatureOptions } from '../launcher/launcher-feature';
import { mcpOAuthFeature, type McpOAuthFeatureOptions } from '../mcp-oauth/mcp-oauth-feature';
import { mcpEndpointFeature } from '../mcp-server/mcp-endpoint-feature';
import type { NotifyOptions } from '../notify/notifications';
import { notificationsFeature } from '../notify/notifications-feature';
import { rulesFeature } from '../rules/rules-feature';
import { telemetryFeature } from '../telemetry/telemetry-feature';
import { telemetrySettings, type TelemetrySettings } from '../telemetry/telemetry-settings';
import { toolPinsFeature } from '../tool-pins/tool-pins-feature';
import type { SpaceFeature } from './space-feature';

export interface ServerFeatureOptions {
  notify?: NotifyOptions;
  /** Runs each space's launched participants, demo agents and observers; omitted, the server runs none (tests). */
  launch?: LauncherFeatureOptions;
  /** OAuth for the remote MCP servers of launched bridges (its public origin; tests: how it fetches). */
  mcpOAuth?: McpOAuthFeatureOptions;
  /**
   * OpenTelemetry export (traces and metrics over OTLP), or `false` for none. Omitted, the environment's OTEL_*
   * variables decide (`telemetrySettings`): with no endpoint set, no telemetry feature and no OpenTelemetry code.
   */
  telemetry?: TelemetrySettings | false;
}

/**
 * What every space of this server runs beside the gateway core, in start order: the one list a single process and
 * a cluster owner both hand to `SpaceHost.start`.
 */
export function serverFeatures(options: ServerFeatureOptions = {}): SpaceFeature[] {
  const features = [
    toolPinsFeature(),
    rulesFeature(),
    budgetsFeature(),
    notificationsFeature(options.notify),
    launcherFeature(options.launch),
    mcpOAuthFeature(options.mcpOAuth),
    mcpEndpointFeature(),
  ];
  // Telemetry first: it observes what the others do from their start, and stops after them.
  const telemetry = options.telemetry ?? telemetrySettings();
  return telemetry ? [telemetryFeature(telemetry), ...features] : features;
}
