/** Test fixtures: MCP clients (the official SDK's, Streamable HTTP) of the space's endpoint. Nothing in the product imports it. */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

/** Connects clients as participants, and ends them all as a well-behaved client would (DELETE, then close). */
export function mcpClients() {
  const open: Client[] = [];
  return {
    /** A client of `url` with `token` in `Authorization: Bearer`, or in `?token=` when `how` is `query`. */
    async connect(url: string, token: string, options: { how?: 'header' | 'query'; info?: { name: string; version: string } } = {}): Promise<Client> {
      const target = new URL(url);
      if (options.how === 'query') target.searchParams.set('token', token);
      const transport = new StreamableHTTPClientTransport(
        target,
        options.how === 'query' ? {} : { requestInit: { headers: { Authorization: `Bearer ${token}` } } },
      );
      const client = new Client(options.info ?? { name: 'test-client', version: '1.0.0' });
      await client.connect(transport);
      open.push(client);
      return client;
    },
    async endAll(): Promise<void> {
      await Promise.all(
        open.splice(0).map(async (client) => {
          await (client.transport as StreamableHTTPClientTransport | undefined)?.terminateSession().catch(() => undefined);
          await client.close();
        }),
      );
    },
  };
}
