import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort } from '../gateway/testing';
import { cleanUpCrashTest, crashToken, ServerProcess, tempDir, writeSpaceConfig } from '../gateway/testing/crash-harness';
import { participantFactory } from '../sdk/testing';
import { ORPHAN_WITHDRAW_REASON } from './open-proposals';

// An MCP session lives in the server's memory: kill -9 ends it, and its client is told the call failed. The proposal
// it was waiting on must not stay open after the restart, or a client that calls again would leave two identical
// proposals, and approving both would run the tool twice.

const SPACE = 'mcp-crash';

describe('MCP sessions across kill -9', () => {
  afterEach(cleanUpCrashTest);

  it('withdraws, at the restart, the proposal a killed session was waiting on; the tool never runs', async () => {
    const dir = tempDir();
    const config = writeSpaceConfig(dir, SPACE, {
      lead: [{ kind: '*' }],
      tools: [{ kind: 'mcp/response' }],
      agent: [{ kind: 'mcp/proposal' }, { kind: 'mcp/withdraw' }, { kind: 'mcp/request', payload: { method: 'tools/list' } }],
    });
    const gateway = await ServerProcess.start({ name: 'gateway', port: await freePort(), dataDir: dir, configFiles: [config] });
    const participants = participantFactory(SPACE, () => gateway.wsUrl, crashToken);
    const written: string[] = [];
    const tools = participants.create('tools', { autoDiscovery: false });
    tools.tools.register({ name: 'write_note', execute: ({ text }) => (written.push(String(text)), 'written') });
    await tools.connect();
    const lead = await participants.connect('lead', { autoDiscovery: false });

    const client = new Client({ name: 'crash-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(gateway.httpUrl(`/mcp/${SPACE}`)), {
        requestInit: { headers: { Authorization: `Bearer ${crashToken('agent')}` } },
      }),
    );
    await expect.poll(async () => (await client.listTools()).tools.map((t) => t.name)).toContain('tools__write_note');
    // Its request breaks with the server (the SDK client may keep retrying its stream: not awaited).
    void client.callTool({ name: 'tools__write_note', arguments: { text: 'before the crash' } }).catch(() => undefined);
    await expect.poll(() => lead.proposals.pending().length, { timeout: 5_000 }).toBe(1);
    const proposal = lead.proposals.pending()[0];

    await gateway.kill9();
    await client.close().catch(() => undefined);
    await gateway.launch();

    // The lead reconnects and catches up: withdrawn by its proposer, with the reason, before anyone could approve it.
    await expect.poll(() => lead.proposals.get(proposal.id)?.state, { timeout: 15_000 }).toBe('withdrawn');
    expect(lead.proposals.get(proposal.id)?.withdrawal?.reason).toBe(ORPHAN_WITHDRAW_REASON);
    expect(written).toEqual([]);
    participants.disconnectAll();
  }, 60_000);
});
