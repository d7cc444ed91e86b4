import { createHash } from 'node:crypto';

/** Between the participant and the tool in an exposed name: `files__read_text_file`. */
export const TOOL_NAME_SEPARATOR = '__';

/** The longest tool name MCP clients are asked to accept (MCP spec, "Tool names": 1–128 characters). */
const MAX_TOOL_NAME = 128;
/** Characters an MCP tool name may hold; anything else is escaped. */
const UNSAFE = /[^A-Za-z0-9_.-]/g;

/**
 * A character MCP does not allow in a tool name, as `_x` and its UTF-8 bytes in hex (`:` → `_x3a`, `é` → `_xc3a9`):
 * participant ids may hold `:` and `@`, and others' tools any character.
 */
function escaped(text: string): string {
  return text.replace(UNSAFE, (c) => `_x${Buffer.from(c, 'utf8').toString('hex')}`);
}

/**
 * The name an MCP client sees for `tool` of `participant`: `<participant>__<tool>`, escaped to MCP's characters; one
 * longer than 128 characters keeps its start and ends with a hash of the whole. Clients call it by this name; the
 * endpoint maps it back from its own listing (never by parsing), so names that happen to contain `__` are safe.
 *
 * @example
 * exposedToolName('files', 'read_text_file'); // 'files__read_text_file'
 * exposedToolName('ops@team', 'deploy'); // 'ops_x40team__deploy'
 */
export function exposedToolName(participant: string, tool: string): string {
  const name = `${escaped(participant)}${TOOL_NAME_SEPARATOR}${escaped(tool)}`;
  if (name.length <= MAX_TOOL_NAME) return name;
  const hash = createHash('sha256').update(`${participant}\n${tool}`).digest('hex').slice(0, 8);
  return `${name.slice(0, MAX_TOOL_NAME - hash.length - 1)}_${hash}`;
}
