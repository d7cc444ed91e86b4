// A scripted MCP server over stdio for the bridge's tests: MGP-aware (it answers `capabilities.mgp` only when the
// client offered it, mgp-0.5.2 §2.4), declares MGP `security` on its tools, fails one tool with a structured MGP
// error, and adds a tool (with `notifications/tools/list_changed`) when asked. `--hang` never answers `initialize`.
import { createInterface } from 'node:readline';

const hang = process.argv.includes('--hang');
const tools = [
  {
    name: 'echo',
    inputSchema: { type: 'object' },
    annotations: { readOnlyHint: false, destructiveHint: true },
    security: { risk_level: 'safe', side_effects: [] },
  },
  { name: 'busy', inputSchema: { type: 'object' } },
  { name: 'add_tool', inputSchema: { type: 'object' }, annotations: { readOnlyHint: false } },
];
const write = (message) => process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);

createInterface({ input: process.stdin }).on('line', (line) => {
  const { id, method, params } = JSON.parse(line);
  if (hang || id === undefined) return;
  switch (method) {
    case 'initialize': {
      const mgp = params.capabilities?.mgp && { version: '0.5.2', extensions: ['security', 'error_handling', 'audit'] };
      return write({
        id,
        result: {
          protocolVersion: params.protocolVersion,
          capabilities: { tools: { listChanged: true }, ...(mgp && { mgp }) },
          serverInfo: { name: 'mgp-fixture', version: '1.0.0' },
        },
      });
    }
    case 'tools/list':
      return write({ id, result: { tools } });
    case 'tools/call':
      if (params.name === 'echo') return write({ id, result: { content: [{ type: 'text', text: JSON.stringify(params.arguments) }] } });
      if (params.name === 'busy') {
        return write({ id, error: { code: 3000, message: 'Rate limited', data: { _mgp: { category: 'resource', retryable: true, retry_after_ms: 5000 } } } });
      }
      if (params.name === 'add_tool') {
        tools.push({ name: `extra_${tools.length}`, inputSchema: { type: 'object' }, annotations: { readOnlyHint: true } });
        write({ id, result: { content: [{ type: 'text', text: 'added' }] } });
        return write({ method: 'notifications/tools/list_changed' });
      }
      return write({ id, error: { code: -32602, message: `unknown tool ${params.name}` } });
    default:
      return write({ id, error: { code: -32601, message: `method not found: ${method}` } });
  }
});
