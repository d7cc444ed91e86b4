import { join } from 'node:path';
import type { JsonSchema } from '../sdk/json-schema-validator';
import type { ToolSecurity } from '../protocol';
import type { ToolCallContext, ToolDefinition } from '../sdk/local-mcp-server';
import { McpError } from '../sdk/sdk-errors';
import { AgentRuntime, type DemoAgentOptions } from './agent-runtime';
import {
  DEFAULT_PACE_MS,
  FILES_CONTEXT_MAX_ENTRIES,
  FILES_MAX_TOKENS,
  FILES_STATUS_INTERVAL_PACES,
  PATH_MAX_LENGTH,
  WRITE_FILE_MAX_BYTES,
} from './demo-defaults';
import { Sandbox, SandboxError } from './sandbox';

/** MGP §14.3 `VALIDATION_BLOCKED`: what a sandbox escape is, in MGP's error vocabulary. */
export const MGP_VALIDATION_BLOCKED = 1010;

/** The sandbox of a space: `<dataDir>/<space>/sandbox`. */
export function sandboxPath(dataDir: string, space: string): string {
  return join(dataDir, space, 'sandbox');
}

const pathProperty = (description: string): JsonSchema => ({ type: 'string', minLength: 1, maxLength: PATH_MAX_LENGTH, description });

/** Each tool's name, description, arguments and MGP risk metadata (MGP §4.3; side-effect categories of §4.3's table). */
const TOOL_SPECS = {
  list_directory: {
    description: 'List a directory of the sandbox (default: its root): name, type, size and modification time of each entry.',
    inputSchema: {
      type: 'object',
      properties: { path: { ...pathProperty('Directory, relative to the sandbox root'), default: '.' } },
      additionalProperties: false,
    },
    security: { risk_level: 'safe' },
  },
  read_file: {
    description: 'Read a text file of the sandbox (large files are truncated).',
    inputSchema: {
      type: 'object',
      required: ['path'],
      properties: { path: pathProperty('File, relative to the sandbox root') },
      additionalProperties: false,
    },
    security: { risk_level: 'safe' },
  },
  write_file: {
    description: 'Create or replace a text file of the sandbox (missing directories are created). Returns the bytes written.',
    inputSchema: {
      type: 'object',
      required: ['path', 'content'],
      properties: {
        path: pathProperty('File, relative to the sandbox root'),
        content: { type: 'string', maxLength: WRITE_FILE_MAX_BYTES, description: 'The complete new content (UTF-8)' },
      },
      additionalProperties: false,
    },
    security: { risk_level: 'moderate', side_effects: ['filesystem'] },
  },
  delete_file: {
    description: 'Delete a file of the sandbox. Cannot be undone.',
    inputSchema: {
      type: 'object',
      required: ['path'],
      properties: { path: pathProperty('File, relative to the sandbox root') },
      additionalProperties: false,
    },
    security: { risk_level: 'dangerous', confirmation_required: true, side_effects: ['filesystem'], reversible: false },
  },
} satisfies Record<string, { description: string; inputSchema: JsonSchema; security: ToolSecurity }>;

type ToolName = keyof typeof TOOL_SPECS;

/**
 * The `files` agent: a tool provider over its space's sandbox directory. It serves `list_directory` and
 * `read_file` (safe), `write_file` (moderate) and `delete_file` (dangerous, confirmation required) with
 * JSON Schema arguments and MGP security metadata; every path stays inside the sandbox. Its working context
 * is the last few operations it served, so its status stays small and steady.
 *
 * @example
 * const files = await startFilesAgent({ gatewayUrl: 'ws://127.0.0.1:3000/ws', space: 'demo', token, dataDir: 'data' });
 * await files.exited;
 */
export async function startFilesAgent(options: DemoAgentOptions): Promise<AgentRuntime> {
  const sandbox = await Sandbox.open(sandboxPath(options.dataDir, options.space));
  const runtime = new AgentRuntime({
    ...options,
    maxTokens: FILES_MAX_TOKENS,
    maxContextEntries: FILES_CONTEXT_MAX_ENTRIES,
    baseline: 'I serve file tools over the sandbox directory of this space, and nothing outside it.',
    answerChat: () =>
      `I serve ${Object.keys(TOOL_SPECS).join(', ')} over this space's sandbox. Reads are safe; writes and deletes need someone allowed to call them (or a human approving a proposal).`,
  });
  const run: Record<ToolName, (args: Record<string, unknown>) => Promise<object>> = {
    list_directory: ({ path }) => sandbox.list(path === undefined ? '.' : String(path)),
    read_file: ({ path }) => sandbox.read(String(path)),
    write_file: ({ path, content }) => sandbox.write(String(path), String(content)),
    delete_file: ({ path }) => sandbox.delete(String(path)),
  };
  for (const name of Object.keys(TOOL_SPECS) as ToolName[]) {
    runtime.participant.tools.register({ name, ...TOOL_SPECS[name], execute: serve(runtime, name, run[name]) });
  }
  await runtime.connect();
  const statusEveryMs = (options.paceMs ?? DEFAULT_PACE_MS) * FILES_STATUS_INTERVAL_PACES;
  runtime.run(async () => {
    while (await runtime.sleep(statusEveryMs)) runtime.reportStatus();
  });
  return runtime;
}

/** Wraps one tool: remembers each call, and turns a sandbox refusal into an MCP tool error the caller can read. */
function serve(
  runtime: AgentRuntime,
  name: ToolName,
  run: (args: Record<string, unknown>) => Promise<object>,
): ToolDefinition['execute'] {
  return async (args: Record<string, unknown>, { from }: ToolCallContext) => {
    const target = String(args.path ?? '.');
    const started = Date.now();
    try {
      const result = await run(args);
      runtime.remember('operation', `${from}: ${name} ${target} → ok`);
      return result;
    } catch (error) {
      if (!(error instanceof SandboxError)) throw error;
      runtime.remember('operation', `${from}: ${name} ${target} → refused (${error.code})`);
      return refusal(error);
    } finally {
      runtime.recordLatency(Date.now() - started);
    }
  };
}

/**
 * A sandbox escape is a refusal: a JSON-RPC error carrying MGP's `VALIDATION_BLOCKED` code. Other sandbox
 * failures (not found, too large…) are MCP tool errors (`isError`) the caller can read and recover from.
 */
function refusal(error: SandboxError) {
  if (error.code === 'outside_sandbox') {
    throw new McpError(MGP_VALIDATION_BLOCKED, error.message, { error: error.code, mgp: { code: MGP_VALIDATION_BLOCKED, category: 'security', retryable: false } });
  }
  return {
    content: [{ type: 'text', text: error.message }],
    isError: true,
    structuredContent: { error: error.code, message: error.message },
  };
}
