/**
 * Reading MCP `tools/call` results (`CallToolResult`) as the demo agents receive them from `mcpRequest`.
 */

/** The error text of a failed call (`isError: true`), or undefined when the call succeeded. */
export function toolError(result: unknown): string | undefined {
  if (!isRecord(result) || result.isError !== true) return undefined;
  const text = Array.isArray(result.content) ? result.content.find((item) => isRecord(item) && item.type === 'text') : undefined;
  return isRecord(text) && typeof text.text === 'string' ? text.text : 'the tool reported an error';
}

/** The call's `structuredContent` (the files agent returns every result that way), or undefined. */
export function structuredResult(result: unknown): Record<string, unknown> | undefined {
  return isRecord(result) && isRecord(result.structuredContent) ? result.structuredContent : undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
