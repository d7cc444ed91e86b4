// A stdio MCP server for the crash tests: one tool, `record`, whose every execution appends its `key` as one line to
// the file named by MEW_COUNT_FILE (synchronously, before it answers), so a test counts executions on the server's
// side, whatever the bridge or the space believe happened. Newline-delimited JSON-RPC, like lib/bridge's fixture.
import { appendFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

const file = process.env.MEW_COUNT_FILE;
if (!file) {
  process.stderr.write('counting-mcp-server: MEW_COUNT_FILE is not set\n');
  process.exit(2);
}
const tools = [
  {
    name: 'record',
    description: 'Records one execution of key (a side effect that must happen at most once per call)',
    inputSchema: { type: 'object', required: ['key'], properties: { key: { type: 'string' } } },
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
  },
];
const write = (message) => process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);

createInterface({ input: process.stdin }).on('line', (line) => {
  let message;
  try {
    message = JSON.parse(line);
  } catch {
    return;
  }
  const { id, method, params } = message;
  if (id === undefined) return; // notifications (initialized, cancelled): nothing to answer
  switch (method) {
    case 'initialize':
      return write({
        id,
        result: { protocolVersion: params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'counting-fixture', version: '1.0.0' } },
      });
    case 'tools/list':
      return write({ id, result: { tools } });
    case 'ping':
      return write({ id, result: {} });
    case 'tools/call': {
      if (params?.name !== 'record') return write({ id, error: { code: -32602, message: `unknown tool ${params?.name}` } });
      const key = String(params.arguments?.key ?? '');
      appendFileSync(file, `${key}\n`);
      return write({ id, result: { content: [{ type: 'text', text: `recorded ${key}` }] } });
    }
    default:
      return write({ id, error: { code: -32601, message: `method not found: ${method}` } });
  }
});
