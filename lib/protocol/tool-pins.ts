/**
 * A tool's pinned definition as `GET /api/spaces/{space}/tools` lists it: the hash of the first definition seen
 * (or the last one an operator accepted) and of the current one; `changed` when they differ.
 */
export interface ToolPin {
  participant: string;
  name: string;
  /** SHA-256 (hex) of its current definition, over canonical JSON. */
  hash: string;
  pinned_hash: string;
  changed: boolean;
  first_seen_at: string;
  changed_at?: string;
  accepted_by?: string;
  accepted_at?: string;
}

/** `GET /api/spaces/{space}/tools`. */
export interface ToolPinList {
  tools: ToolPin[];
}

/** What of a tool is pinned: everything that tells an agent or an approver what it does (as the server stored it). */
export interface PinnedToolDefinition {
  name: string;
  description?: unknown;
  inputSchema?: unknown;
  annotations?: unknown;
  /** MGP risk metadata, where a tool declares it. */
  security?: unknown;
}

/** `GET /api/spaces/{space}/tools/{participant}/{tool}/definitions`: both definitions, for a diff. */
export interface ToolDefinitions {
  pinned: PinnedToolDefinition;
  current: PinnedToolDefinition;
}

/** `POST /api/spaces/{space}/tools/{participant}/{tool}/accept`: the tool as now pinned. */
export interface ToolPinAccepted {
  tool: ToolPin;
}
