export { Gateway, type GatewayOptions, type Session, type SubmitResult } from './gateway';
export { formatCursor, parseCursor, type HistoryPosition } from './history-cursor';
export type { HistoryEntry, HistoryStore, LoadedHistory } from './history-store';
export { MemoryHistoryStore } from './memory-history-store';
export { GatewayError } from './gateway-error';
export { DEFAULT_LIMITS, GATEWAY_ID, resolveLimits, type GatewayLimits } from './gateway-options';
export { gatewayEnv, SettingsError } from './server-settings';
export { GATEWAY_WS_PATH, HttpListener, type BoundAddress } from './http-listener';
export { createHttpApi, type HttpRoute } from './http-api';
export { sendError, sendJson } from './http-util';
export { OutboundMessage } from './outbound-message';
export { Participant, type Connection } from './participant';
export { Space } from './space';
export { loadSpaceConfig, parseSpaceConfig, SpaceConfigError, type SpaceConfig, type ParticipantConfig } from './space-config';
export {
  createWsTransport,
  type BindOptions,
  type TransportSession,
  type WsCredentials,
  type WsSessionHost,
  type WsSpace,
  type WsTransport,
} from './ws-transport';
export { localSessions } from './local-session-host';
export { WsConnection } from './ws-connection';
export { DATABASE_FILE, GatewayDatabase } from './persistence/gateway-database';
export { PersistenceError } from './persistence/persistence-error';
export { SpaceRecords, type SpaceStateData, type TokenChanges } from './persistence/space-records';
export { SqliteHistoryStore } from './persistence/sqlite-history-store';
export { readStoredTokens, type StoredTokens } from './persistence/stored-tokens';
