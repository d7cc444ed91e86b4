/**
 * Reading MCP `tools/call` results (`CallToolResult`) as the demo agents receive them from `mcpRequest`.
 */

/** The error text of a failed call (`isError: true`), or undefined when the call succeeded. */
export function toolError(result: unknown): string | undefined {
  if (!isRecord(result) || result.isError !== true) return undefined;
  return resultText(result) ?? 'the tool reported an error';
}

/** The text of a successful call (its text items, joined), or undefined when it has none. */
export function resultText(result: unknown): string | undefined {
  if (!isRecord(result) || !Array.isArray(result.content)) return undefined;
  const texts = result.content.flatMap((item) => (isRecord(item) && item.type === 'text' && typeof item.text === 'string' ? [item.text] : []));
  return texts.length > 0 ? texts.join('\n') : undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
