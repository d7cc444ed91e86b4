import { CapabilityError, normalizeCapabilities, type CapabilityPattern } from '@/lib/capabilities';
import type { WireCapability } from '@/lib/protocol';

export type TemplateId = 'proposal-only' | 'read-only-tools' | 'tool-by-name' | 'full-mcp' | 'custom';

export interface CapabilityTemplate {
  id: TemplateId;
  label: string;
  hint: string;
  build(toolName: string): CapabilityPattern[];
}

/** The grants operators make most (STYLE.md: proposal-only agents earn tools one at a time). */
export const TEMPLATES: readonly CapabilityTemplate[] = [
  {
    id: 'proposal-only',
    label: 'Proposal-only',
    hint: 'may propose MCP calls and chat; a human fulfils them',
    build: (): CapabilityPattern[] => [{ kind: 'mcp/proposal' }, { kind: 'chat' }],
  },
  {
    id: 'read-only-tools',
    label: 'Read-only tools',
    hint: 'tools/list, and tools/call of read_* and list_* tools',
    build: (): CapabilityPattern[] => [
      { kind: 'mcp/request', payload: { method: 'tools/call', params: { name: ['read_*', 'list_*'] } } },
      { kind: 'mcp/request', payload: { method: 'tools/list' } },
    ],
  },
  {
    id: 'tool-by-name',
    label: 'A tool by name',
    hint: 'tools/call of one named tool',
    build: (toolName): CapabilityPattern[] => [{ kind: 'mcp/request', payload: { method: 'tools/call', params: { name: toolName } } }],
  },
  {
    id: 'full-mcp',
    label: 'Full MCP',
    hint: 'every mcp/* kind: requests, responses, proposals',
    build: (): CapabilityPattern[] => [{ kind: 'mcp/*' }],
  },
];

export function templateText(id: TemplateId, toolName: string): string {
  const template = TEMPLATES.find((t) => t.id === id);
  return template ? JSON.stringify(template.build(toolName), null, 2) : '';
}

export type ParsedCapabilities = { ok: true; capabilities: WireCapability[] } | { ok: false; error: string; path?: string };

/** `[0].payload.method` */
export function formatPath(path: readonly (string | number)[]): string {
  return path
    .map((p) => (typeof p === 'number' ? `[${p}]` : /^[A-Za-z_$][\w$]*$/.test(p) ? `.${p}` : `[${JSON.stringify(p)}]`))
    .join('')
    .replace(/^\./, '');
}

/**
 * Validates pattern text as the gateway will: JSON, then `normalizeCapabilities` (a single object is taken as a
 * list of one). Errors carry the path of the offending value.
 */
export function parseCapabilities(text: string): ParsedCapabilities {
  if (text.trim() === '') return { ok: false, error: 'Enter at least one capability pattern.' };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { ok: false, error: `Not valid JSON: ${(error as Error).message}` };
  }
  const list = Array.isArray(value) ? value : [value];
  if (list.length === 0) return { ok: false, error: 'Enter at least one capability pattern.' };
  try {
    // Normalised patterns are plain JSON, which is what the wire type describes.
    return { ok: true, capabilities: normalizeCapabilities(list) as WireCapability[] };
  } catch (error) {
    if (!(error instanceof CapabilityError)) throw error;
    const path = Array.isArray(value) ? error.path : error.path.slice(1);
    return { ok: false, error: error.message, path: path.length > 0 ? formatPath(path) : undefined };
  }
}

/** A stable key for comparing capabilities by value (object keys sorted). */
export function capabilityKey(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(capabilityKey).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    return `{${Object.keys(record)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${capabilityKey(record[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'undefined';
}

/** One line for people: the kind, then the payload pattern as compact JSON. */
export function capabilityLabel(capability: WireCapability | CapabilityPattern): { kind: string; payload?: string } {
  if (typeof capability === 'string') return { kind: capability };
  const kind = Array.isArray(capability.kind) ? capability.kind.join(' | ') : String(capability.kind);
  return { kind, payload: capability.payload === undefined ? undefined : JSON.stringify(capability.payload) };
}
