import { type Envelope, formatIssues, JSONRPC_ERROR_CODES, type ToolAnnotations, type ToolSecurity } from '../protocol';
import { validateJsonSchema, type JsonSchema } from './json-schema-validator';
import { McpError } from './sdk-errors';

/** Who is calling a tool, for tools that care. */
export interface ToolCallContext {
  /** The participant whose `mcp/request` this is (the fulfiller, for a fulfilled proposal). */
  from: string;
  envelope: Envelope<'mcp/request'>;
}

/** A tool this participant serves through `tools/list` and `tools/call`. */
export interface ToolDefinition {
  name: string;
  description?: string;
  /** Arguments are validated against it (all of JSON Schema) before `execute` runs. */
  inputSchema?: JsonSchema;
  /** MGP risk metadata, passed through `tools/list` for approvers to see. */
  security?: ToolSecurity;
  /** MCP tool annotations (`readOnlyHint`…), passed through `tools/list`; without `security`, readers take the risk from them. */
  annotations?: ToolAnnotations;
  /**
   * Runs the tool. Return an MCP `CallToolResult` (`{content: [...]}`) as is, or any value: a string becomes
   * one text item, anything else JSON text (plus `structuredContent` for objects). A throw becomes
   * `{content: [{type: 'text', text: message}], isError: true}`, as MCP asks for tool failures — except an
   * `McpError`, which becomes a JSON-RPC error (a refusal rather than a failure, e.g. a path outside a sandbox).
   */
  execute(args: Record<string, unknown>, context: ToolCallContext): unknown;
}

/** Contents of a resource: text, or base64 bytes as `blob`. */
export type ResourceContents = { text: string; mimeType?: string } | { blob: string; mimeType?: string };

/** A resource this participant serves through `resources/list` and `resources/read`. */
export interface ResourceDefinition {
  uri: string;
  name: string;
  description?: string;
  mimeType?: string;
  /** A string is text contents. */
  read(): string | ResourceContents | Promise<string | ResourceContents>;
}

export interface JsonRpcError {
  code: number;
  message: string;
  data?: unknown;
}

/** The answer to one request: a result or an error, ready to become an `mcp/response` payload. */
export type McpAnswer = { result: unknown } | { error: JsonRpcError };

/** Answers one MCP request addressed to the participant; never throws (a failure is an `{error}` answer). */
export type McpRequestHandler = (method: string, params: unknown, context: ToolCallContext) => Promise<McpAnswer>;

/**
 * Answers a method the server does not implement itself (e.g. MCP's `initialize`); undefined means "method not
 * found". A throw becomes an internal error.
 */
export type McpFallbackHandler = (method: string, params: unknown, context: ToolCallContext) => McpAnswer | undefined | Promise<McpAnswer | undefined>;

/** What `tools/list` says about a tool. */
export type ToolDescriptor = Pick<ToolDefinition, 'name' | 'description' | 'inputSchema' | 'security' | 'annotations'>;

const DEFAULT_INPUT_SCHEMA: JsonSchema = { type: 'object' };

/**
 * The participant's own MCP server: its registered tools and resources, and the answers to `tools/list`,
 * `tools/call`, `resources/list` and `resources/read` (other methods go to the `fallback`, if any). Transport-free,
 * so it is tested without a gateway.
 *
 * @example
 * const server = new LocalMcpServer();
 * server.registerTool({ name: 'add', inputSchema: { type: 'object', required: ['a', 'b'] }, execute: ({ a, b }) => Number(a) + Number(b) });
 * await server.answer('tools/call', { name: 'add', arguments: { a: 1, b: 2 } }, context);
 * // { result: { content: [{ type: 'text', text: '3' }] } }
 */
export class LocalMcpServer {
  private readonly tools = new Map<string, ToolDefinition>();
  private readonly resources = new Map<string, ResourceDefinition>();

  constructor(private readonly fallback?: McpFallbackHandler) {}

  /** Adds (or replaces, by name) a tool. */
  registerTool(tool: ToolDefinition): void {
    this.tools.set(tool.name, tool);
  }

  /** Adds (or replaces, by URI) a resource. */
  registerResource(resource: ResourceDefinition): void {
    this.resources.set(resource.uri, resource);
  }

  private listTools(): ToolDescriptor[] {
    return [...this.tools.values()].map(({ name, description, inputSchema, security, annotations }) => ({
      name,
      ...(description !== undefined && { description }),
      inputSchema: inputSchema ?? DEFAULT_INPUT_SCHEMA,
      ...(security !== undefined && { security }),
      ...(annotations !== undefined && { annotations }),
    }));
  }

  /** Answers one MCP method; never throws. */
  async answer(method: string, params: unknown, context: ToolCallContext): Promise<McpAnswer> {
    switch (method) {
      case 'tools/list':
        return { result: { tools: this.listTools() } };
      case 'tools/call':
        return this.callTool(params, context);
      case 'resources/list':
        return {
          result: {
            resources: [...this.resources.values()].map(({ uri, name, description, mimeType }) => ({
              uri,
              name,
              ...(description !== undefined && { description }),
              ...(mimeType !== undefined && { mimeType }),
            })),
          },
        };
      case 'resources/read':
        return this.readResource(params);
      default:
        return this.answerOther(method, params, context);
    }
  }

  private async answerOther(method: string, params: unknown, context: ToolCallContext): Promise<McpAnswer> {
    try {
      const answer = await this.fallback?.(method, params, context);
      if (answer) return answer;
    } catch (e) {
      return error(JSONRPC_ERROR_CODES.internalError, `${method} failed: ${e instanceof Error ? e.message : String(e)}`);
    }
    return error(JSONRPC_ERROR_CODES.methodNotFound, `method not found: ${method}`);
  }

  private async callTool(params: unknown, context: ToolCallContext): Promise<McpAnswer> {
    const { name, arguments: args = {} } = (isRecord(params) ? params : {}) as { name?: unknown; arguments?: unknown };
    if (typeof name !== 'string') return error(JSONRPC_ERROR_CODES.invalidParams, 'tools/call needs params.name');
    const tool = this.tools.get(name);
    if (!tool) return error(JSONRPC_ERROR_CODES.invalidParams, `unknown tool: ${name}`);
    const issues = validateJsonSchema(tool.inputSchema ?? DEFAULT_INPUT_SCHEMA, args);
    if (issues.length > 0) {
      const detail = formatIssues(issues.map((i) => ({ ...i, path: ['arguments', ...i.path] })));
      return error(JSONRPC_ERROR_CODES.invalidParams, `invalid arguments for ${name}: ${detail}`, { issues });
    }
    try {
      return { result: toCallToolResult(await tool.execute(args as Record<string, unknown>, context)) };
    } catch (e) {
      // A tool that means "this call is refused" throws McpError and the caller gets a JSON-RPC error;
      // any other failure is a tool error the caller (often a model) can read and recover from.
      if (e instanceof McpError) return error(e.code, e.reason, e.data);
      return { result: { content: [{ type: 'text', text: e instanceof Error ? e.message : String(e) }], isError: true } };
    }
  }

  private async readResource(params: unknown): Promise<McpAnswer> {
    const uri = isRecord(params) ? params.uri : undefined;
    if (typeof uri !== 'string') return error(JSONRPC_ERROR_CODES.invalidParams, 'resources/read needs params.uri');
    const resource = this.resources.get(uri);
    if (!resource) return error(JSONRPC_ERROR_CODES.resourceNotFound, `resource not found: ${uri}`, { uri });
    try {
      const read = await resource.read();
      const contents = typeof read === 'string' ? { text: read } : read;
      const mimeType = contents.mimeType ?? resource.mimeType;
      return { result: { contents: [{ uri, ...(mimeType !== undefined && { mimeType }), ...contents }] } };
    } catch (e) {
      return error(JSONRPC_ERROR_CODES.internalError, `reading ${uri} failed: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
}

function toCallToolResult(value: unknown): unknown {
  if (isRecord(value) && Array.isArray(value.content)) return value;
  if (value === undefined) return { content: [] };
  if (typeof value === 'string') return { content: [{ type: 'text', text: value }] };
  return {
    content: [{ type: 'text', text: JSON.stringify(value) }],
    ...(isRecord(value) && { structuredContent: value }),
  };
}

function error(code: number, message: string, data?: unknown): McpAnswer {
  return { error: { code, message, ...(data !== undefined && { data }) } };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
