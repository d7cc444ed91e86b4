// The setup of each MCP client docs/mcp.md describes, filled in with a space's MCP URL and a participant's token, for
// the "Connect an MCP client…" dialog. Pure: the dialog renders them, a unit test reads them.

/** What stands for the token until one is issued. */
export const TOKEN_PLACEHOLDER = 'YOUR_TOKEN';

/** One block to copy: a command, a config file's content or a program. */
export interface McpSnippet {
  /** What it is, as its copy button says (`Copy Cursor ~/.cursor/mcp.json`). */
  label: string;
  language: 'shell' | 'json' | 'toml' | 'python';
  text: string;
}

export interface McpClientSetup {
  /** Stable id (the dialog's radio value). */
  id: 'claude-code' | 'cursor' | 'vscode' | 'codex' | 'openai-agents' | 'inspector';
  client: string;
  /** One line on where it goes and what to watch for (long waits for approval). */
  note: string;
  snippets: McpSnippet[];
}

/** `<origin>/mcp/<space>`: where a space is an MCP server (docs/mcp.md). */
export function mcpServerUrl(origin: string, space: string): string {
  return `${origin.replace(/\/+$/, '')}/mcp/${encodeURIComponent(space)}`;
}

/** The name the clients list the server under: `mew-<space>`, in the characters every client accepts. */
export function mcpServerName(space: string): string {
  return `mew-${space.replace(/[^A-Za-z0-9_-]/g, '-')}`;
}

/**
 * The setup of each client for `url`, as `name`, with `token` (or {@link TOKEN_PLACEHOLDER}): shells read the token
 * from `MEW_TOKEN` (set on the snippet's first line), files that cannot read the environment carry it.
 */
export function mcpClientSetups({ url, name, token }: { url: string; name: string; token?: string }): McpClientSetup[] {
  const t = token ?? TOKEN_PLACEHOLDER;
  const exportToken = `export MEW_TOKEN='${t}'`;
  return [
    {
      id: 'claude-code',
      client: 'Claude Code',
      note: 'Tool calls time out after MCP_TOOL_TIMEOUT ms: raise it for calls that wait for approval.',
      snippets: [
        {
          label: 'commands',
          language: 'shell',
          text: [
            exportToken,
            `claude mcp add --transport http ${name} ${url} --header "Authorization: Bearer $MEW_TOKEN"`,
            'MCP_TOOL_TIMEOUT=900000 claude',
          ].join('\n'),
        },
      ],
    },
    {
      id: 'cursor',
      client: 'Cursor',
      note: 'In ~/.cursor/mcp.json (or the project’s .cursor/mcp.json); the file holds the token, keep it private.',
      snippets: [
        {
          label: '~/.cursor/mcp.json',
          language: 'json',
          text: JSON.stringify({ mcpServers: { [name]: { url, headers: { Authorization: `Bearer ${t}` } } } }, null, 2),
        },
      ],
    },
    {
      id: 'vscode',
      client: 'VS Code',
      note: 'In .vscode/mcp.json: VS Code asks for the token when it starts the server; paste the one above.',
      snippets: [
        {
          label: '.vscode/mcp.json',
          language: 'json',
          text: JSON.stringify(
            {
              inputs: [{ type: 'promptString', id: 'mew-token', description: 'MEW participant token', password: true }],
              servers: { [name]: { type: 'http', url, headers: { Authorization: 'Bearer ${input:mew-token}' } } },
            },
            null,
            2,
          ),
        },
      ],
    },
    {
      id: 'codex',
      client: 'Codex CLI',
      note: 'Codex reads the token from the variable named, never from its config; set MEW_TOKEN wherever codex runs.',
      snippets: [
        { label: 'commands', language: 'shell', text: [exportToken, `codex mcp add ${name} --url ${url} --bearer-token-env-var MEW_TOKEN`].join('\n') },
        {
          label: '~/.codex/config.toml',
          language: 'toml',
          text: [`[mcp_servers.${name}]`, `url = "${url}"`, 'bearer_token_env_var = "MEW_TOKEN"', 'tool_timeout_sec = 900'].join('\n'),
        },
      ],
    },
    {
      id: 'openai-agents',
      client: 'OpenAI Agents SDK',
      note: 'Python; the token is read from MEW_TOKEN (export it first).',
      snippets: [
        { label: 'token', language: 'shell', text: exportToken },
        {
          label: 'Python',
          language: 'python',
          text: [
            'import os',
            'from agents import Agent',
            'from agents.mcp import MCPServerStreamableHttp',
            '',
            `${name.replace(/-/g, '_')} = MCPServerStreamableHttp(`,
            `    params={"url": "${url}", "headers": {"Authorization": f"Bearer {os.environ['MEW_TOKEN']}"}, "timeout": 30},`,
            '    client_session_timeout_seconds=900,  # a call that waits for approval',
            ')',
            `agent = Agent(name="worker", mcp_servers=[${name.replace(/-/g, '_')}])`,
          ].join('\n'),
        },
      ],
    },
    {
      id: 'inspector',
      client: 'MCP Inspector',
      note: 'Lists the tools this participant may call or propose, from the command line.',
      snippets: [
        {
          label: 'commands',
          language: 'shell',
          text: [
            exportToken,
            `npx @modelcontextprotocol/inspector --cli ${url} --transport http --header "Authorization: Bearer $MEW_TOKEN" --method tools/list`,
          ].join('\n'),
        },
      ],
    },
  ];
}
