import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { joinAs, spaceConfig, startTestGateway, tokenOf, type TestClient, type TestGateway } from '../gateway/testing';
import { REF_TOOLS_LIST } from '../protocol/reference-shapes.fixture';
import { filesystemServer } from './filesystem-server';
import { McpBridge } from './mcp-bridge';

// The reference implementation's agent (`mew`, a raw client in its shapes) calling a real MCP server through our
// bridge, with requests that carry neither `jsonrpc` nor `id`, as its agent sends them.
const SPACE = 'interop-bridge';

describe('the MCP bridge and the reference implementation’s requests', () => {
  let gateway: TestGateway;
  let bridge: McpBridge;
  let mew: TestClient;
  let sandbox: string;

  beforeEach(async () => {
    gateway = await startTestGateway(
      spaceConfig(SPACE, {
        mew: [{ kind: 'mcp/request' }, { kind: 'chat' }],
        files: [{ kind: 'mcp/response' }, { kind: 'mcp/request', payload: { method: 'notifications/tools/list_changed' } }, { kind: 'participant/status' }],
      }),
    );
    sandbox = await mkdtemp(join(tmpdir(), 'mew-bridge-ref-'));
    await writeFile(join(sandbox, 'minutes.md'), '# Minutes');
    bridge = new McpBridge({ gateway: gateway.wsUrl(), space: SPACE, token: tokenOf('files'), server: filesystemServer(sandbox), log: () => undefined });
    await bridge.connect();
    mew = await joinAs(gateway, tokenOf('mew'), `space=${SPACE}`);
  });
  afterEach(async () => {
    mew.close();
    await bridge.stop();
    await gateway.close();
    await rm(sandbox, { recursive: true, force: true });
  });

  const responseTo = (id: string) => mew.next((f) => f.kind === 'mcp/response' && f.correlation_id?.[0] === id, 15_000);

  it('answers tools/list and tools/call without a JSON-RPC id, correlated by envelope id, and leaves notifications unanswered', async () => {
    mew.send({ ...REF_TOOLS_LIST, to: ['files'] });
    const listed = await responseTo(REF_TOOLS_LIST.id);
    expect(listed).toMatchObject({ from: 'files', to: ['mew'] });
    expect(listed.payload.id).toBeUndefined();
    expect(listed.payload.result.tools.map((tool: { name: string }) => tool.name)).toContain('read_text_file');

    mew.send({ id: 'ref-notify', kind: 'mcp/request', to: ['files'], payload: { method: 'notifications/initialized' } });
    mew.send({
      id: 'ref-read',
      kind: 'mcp/request',
      to: ['files'],
      payload: { method: 'tools/call', params: { name: 'read_text_file', arguments: { path: 'minutes.md' } } },
    });
    const read = await responseTo('ref-read');
    expect(read.payload.result.content[0].text).toBe('# Minutes');
    expect(mew.received.filter((f) => f.kind === 'mcp/response' || f.kind === 'system/error')).toEqual([]);
  }, 30_000);
});
