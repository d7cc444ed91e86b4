import { describe, expect, it } from 'vitest';
import { mcpClientSetups, mcpServerName, mcpServerUrl, TOKEN_PLACEHOLDER } from './mcp-client-snippets';

describe('the MCP client setups of "Connect an MCP client…"', () => {
  const url = mcpServerUrl('http://127.0.0.1:3000/', 'my space');
  const setups = mcpClientSetups({ url, name: mcpServerName('my space'), token: 'tok_abc-123' });
  const text = (id: string) =>
    setups
      .find((s) => s.id === id)!
      .snippets.map((s) => s.text)
      .join('\n');

  it('names the space’s MCP endpoint and a server name every client accepts', () => {
    expect(url).toBe('http://127.0.0.1:3000/mcp/my%20space');
    expect(mcpServerName('my space')).toBe('mew-my-space');
  });

  it('covers every client of docs/mcp.md, each with the URL', () => {
    expect(setups.map((s) => s.client)).toEqual(['Claude Code', 'Cursor', 'VS Code', 'Codex CLI', 'OpenAI Agents SDK', 'MCP Inspector']);
    for (const setup of setups) expect(setup.snippets.map((s) => s.text).join('\n')).toContain(url);
  });

  it('fills in the token where the client needs it, from MEW_TOKEN in shells, and never in VS Code’s file', () => {
    expect(text('claude-code')).toBe(
      [
        "export MEW_TOKEN='tok_abc-123'",
        `claude mcp add --transport http mew-my-space ${url} --header "Authorization: Bearer $MEW_TOKEN"`,
        'MCP_TOOL_TIMEOUT=900000 claude',
      ].join('\n'),
    );
    expect(JSON.parse(text('cursor'))).toEqual({ mcpServers: { 'mew-my-space': { url, headers: { Authorization: 'Bearer tok_abc-123' } } } });
    expect(JSON.parse(text('vscode')).servers['mew-my-space'].headers.Authorization).toBe('Bearer ${input:mew-token}');
    expect(text('vscode')).not.toContain('tok_abc-123');
    expect(text('codex')).toContain('--bearer-token-env-var MEW_TOKEN');
    expect(text('openai-agents')).toContain(`os.environ['MEW_TOKEN']`);
    expect(text('inspector')).toContain('--method tools/list');
  });

  it('shows a placeholder until a token is issued', () => {
    const placeholder = mcpClientSetups({ url, name: 'mew' });
    expect(placeholder[0].snippets[0].text).toContain(`export MEW_TOKEN='${TOKEN_PLACEHOLDER}'`);
  });
});
