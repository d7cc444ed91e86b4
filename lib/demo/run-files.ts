/**
 * The demo's `files` server, as its config's `bridge:` entry runs it:
 *
 *   node --import tsx lib/demo/run-files.ts <sandbox directory>
 *
 * Seeds the sandbox the first time (`seedSandbox`), then runs the official filesystem MCP server
 * (`@modelcontextprotocol/server-filesystem`) on it in this process, over stdio: the bridge talks to it as to any
 * MCP server.
 */
import { pathToFileURL } from 'node:url';
import { filesystemServer } from '../bridge/filesystem-server';
import { RUNNER_EXIT_CODES } from '../launcher/runner-convention';
import { seedSandbox } from './sandbox';

const root = process.argv[2];
if (!root) {
  console.error('usage: node --import tsx lib/demo/run-files.ts <sandbox directory>');
  process.exit(RUNNER_EXIT_CODES.usage);
}
seedSandbox(root);
const [entry] = filesystemServer(root).args;
// The server reads the directories it may serve from its command line when it loads.
process.argv = [process.argv[0], entry, root];
await import(pathToFileURL(entry).href);
