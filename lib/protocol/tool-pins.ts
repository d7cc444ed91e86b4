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
