import type { PinnedToolDefinition } from '@/lib/protocol';

/** The fields of a definition in the order a reader weighs them: what it says it does comes first. */
const FIELDS = ['name', 'description', 'inputSchema', 'annotations', 'security'] as const;

/** A JSON value with every object's keys sorted, so two definitions differ in a diff only where they differ. */
function sorted(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sorted);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key) => [key, sorted((value as Record<string, unknown>)[key])]),
  );
}

/**
 * A tool definition as text for a line diff: each field under its name, strings as they read (a description's
 * lines are its own), anything else as indented JSON with sorted keys (the hash is over canonical JSON too).
 *
 * @example
 * definitionText({ name: 'note_down', description: 'Appends a line.' });
 * // 'name: note_down\n\ndescription:\n  Appends a line.\n'
 */
export function definitionText(definition: PinnedToolDefinition): string {
  const parts: string[] = [];
  const record = definition as unknown as Record<string, unknown>;
  const fields = [
    ...FIELDS,
    ...Object.keys(record)
      .filter((key) => !(FIELDS as readonly string[]).includes(key))
      .sort(),
  ];
  for (const field of fields) {
    const value = record[field];
    if (value === undefined) continue;
    if (field === 'name' && typeof value === 'string') {
      parts.push(`name: ${value}\n`);
      continue;
    }
    const text = typeof value === 'string' ? value : JSON.stringify(sorted(value), null, 2);
    parts.push(`${field}:\n${text.replace(/^/gm, '  ')}\n`);
  }
  return parts.join('\n');
}
