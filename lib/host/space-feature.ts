import type { AuditSink } from '../gateway/audit-sink';
import type { ConfigSection } from '../gateway/config-section';
import type { Gateway } from '../gateway/gateway';
import type { HttpRoute } from '../gateway/http-api';
import type { GatewayDatabase } from '../gateway/persistence/gateway-database';
import type { Space } from '../gateway/space';
import type { SpaceConfig } from '../gateway/space-config';
import type { TransportFactory } from '../sdk/transport';
import type { FeatureTable } from './change-record';
import type { HostStorage } from './host-storage';

/**
 * What a feature is handed for the one space it runs beside. It is the same in a single process and in a cluster
 * owner; only `storage` differs (SQLite alone, or SQLite replicated through the owner's fenced writes).
 */
export interface SpaceHostContext {
  readonly config: SpaceConfig;
  readonly space: Space;
  /** The gateway serving the space (its routes resolve the space and authenticate through it). */
  readonly gateway: Gateway;
  /** The host's database, where the feature's tables are (created before it starts, filled in a cluster). */
  readonly database: GatewayDatabase;
  /** Where the feature's audit records go (in the turn's write, like the gateway's own). */
  readonly audit: AuditSink;
  readonly storage: HostStorage;
  /** This server's own WebSocket URL (launched processes join through it). */
  readonly gatewayUrl: string;
  /**
   * How a participant the host runs in this process (the rule supervisor, an MCP session) joins the space: bound to
   * the gateway as one of its connections, without a socket (`inProcessTransport`).
   */
  readonly join: TransportFactory;
  /** This server's own HTTP origin (links fall back to it when no public URL is set). */
  readonly httpUrl: string;
  /** One line for the server's console. */
  log(line: string): void;
  /** A feature registered before this one, as it runs for this space (a feature may build on earlier ones). */
  feature<T extends RunningFeature = RunningFeature>(name: string): T | undefined;
}

/**
 * Something a space runs beside the gateway core (its rule supervisor, launched processes, notifications, budgets):
 * registered with the host, which creates its tables, starts it for each space it serves and serves its routes. The
 * gateway core knows none of them; a cluster owner runs them exactly as a single process does.
 */
export interface SpaceFeature {
  /** How the host and tests name it (`host.feature(name)`). */
  readonly name: string;
  /** Its tables in the host's database; in a cluster every row change is replicated and reloaded by the next owner. */
  readonly tables?: readonly FeatureTable[];
  /** What it adds to the space config (participant fields), read when a config loads. */
  readonly config?: ConfigSection;
  start(context: SpaceHostContext): RunningFeature | Promise<RunningFeature>;
}

/** A feature running for one space. */
export interface RunningFeature {
  /** Its HTTP endpoints, served for requests about this space. */
  readonly routes?: readonly HttpRoute[];
  /** A clean handover: what it runs settles (launched processes exit) before the host lets the space go. */
  release?(): Promise<void>;
  /** Stops at once. */
  stop(): void | Promise<void>;
}

/** The config sections of these features, for reading configs (`loadSpaceConfig(file, { sections })`). */
export function configSections(features: readonly SpaceFeature[]): ConfigSection[] {
  return features.flatMap((feature) => feature.config ?? []);
}
