/** The protocol identifier every envelope carries in `protocol` (spec §3: MUST be `"mew/v0.4"`). */
export const PROTOCOL_VERSION = 'mew/v0.4' as const;

export type ProtocolVersion = typeof PROTOCOL_VERSION;
