/** A tool as the space knows it: who serves it, and its own name there. */
export interface ToolTarget {
  participantId: string;
  tool: string;
}

/** What chat-completions APIs accept as a function name. */
export const LLM_TOOL_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;
const MAX_LENGTH = 64;
/** Between participant and tool: `files__write_file` (the spec's `files/write_file`, made API-safe). */
const SEPARATOR = '__';

/**
 * API-safe names for other participants' tools, e.g. `files__write_file`. A name is assigned once and kept for
 * the agent's lifetime, so a name the model saw earlier in the conversation still means the same tool; a name is
 * mapped back by lookup, never parsed, so ids with `_`, `.` or `/` and sanitisation collisions stay exact.
 *
 * @example
 * const names = new LlmToolNames();
 * names.nameFor({ participantId: 'files', tool: 'write_file' }); // 'files__write_file'
 * names.resolve('files__write_file'); // { participantId: 'files', tool: 'write_file' }
 */
export class LlmToolNames {
  private readonly byKey = new Map<string, string>();
  private readonly byName = new Map<string, ToolTarget>();

  nameFor(target: ToolTarget): string {
    const key = JSON.stringify([target.participantId, target.tool]);
    const known = this.byKey.get(key);
    if (known) return known;
    const base = `${sanitize(target.participantId)}${SEPARATOR}${sanitize(target.tool)}`.slice(0, MAX_LENGTH);
    let name = base;
    for (let n = 2; this.byName.has(name); n++) {
      const suffix = `_${n}`;
      name = base.slice(0, MAX_LENGTH - suffix.length) + suffix;
    }
    this.byKey.set(key, name);
    this.byName.set(name, { participantId: target.participantId, tool: target.tool });
    return name;
  }

  /** The tool behind a name this instance assigned; undefined for a name the model made up. */
  resolve(name: string): ToolTarget | undefined {
    return this.byName.get(name);
  }
}

function sanitize(part: string): string {
  return part.replace(/[^a-zA-Z0-9_-]/g, '_') || '_';
}
