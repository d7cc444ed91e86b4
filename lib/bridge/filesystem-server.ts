import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { StdioServerSpec } from './mcp-server-spec';

/**
 * The official filesystem MCP server (`@modelcontextprotocol/server-filesystem`, a dependency) serving `root`,
 * run from node_modules with this Node: nothing is downloaded at run time.
 *
 * @example
 * new McpServerConnection({ server: filesystemServer('/srv/sandbox'), log: console.error });
 */
export function filesystemServer(root: string): StdioServerSpec {
  const manifest = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-filesystem/package.json');
  return { command: process.execPath, args: [join(dirname(manifest), 'dist', 'index.js'), root] };
}
