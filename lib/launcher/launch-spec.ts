import { z } from 'zod';
import { REMOTE_TRANSPORTS } from '../bridge/bridge-defaults';
import { HEADER_NAME } from '../bridge/bridge-env';

/** When a launched participant is started again after its process ends. */
export const RESTART_POLICIES = ['always', 'on-failure', 'never'] as const;
export type RestartPolicyName = (typeof RESTART_POLICIES)[number];

const STDIO_FIELDS = ['args', 'env', 'cwd'] as const;
const REMOTE_FIELDS = ['headers', 'transport'] as const;

/**
 * An MCP server the bridge puts into the space: a `command` it starts (stdio), or the `url` of a remote one
 * (Streamable HTTP, falling back to SSE, or the `transport` named). Header values may use `${NAME}` like `env`.
 */
const bridgeServerSchema = z
  .strictObject({
    command: z.string().min(1).optional(),
    args: z.array(z.string()).optional(),
    /** For the MCP server. */
    env: z.record(z.string(), z.string()).optional(),
    /** The MCP server's directory, relative to the config file's folder. @default the participant's `cwd` */
    cwd: z.string().optional(),
    /** A remote MCP server's endpoint, `http(s)://…`. */
    url: z.string().min(1).optional(),
    /** Sent with every request to a remote server (e.g. `Authorization: "Bearer ${API_KEY}"`); never logged. */
    headers: z.record(z.string(), z.string()).optional(),
    /** @default Streamable HTTP, falling back to SSE */
    transport: z.enum(REMOTE_TRANSPORTS).optional(),
  })
  .superRefine((server, ctx) => {
    if ((server.command === undefined) === (server.url === undefined)) {
      ctx.addIssue({ code: 'custom', path: ['command'], message: 'give command (an MCP server that speaks stdio) or url (a remote one)' });
    }
    const [misplaced, owner] =
      server.url !== undefined
        ? [STDIO_FIELDS.find((field) => server[field] !== undefined), 'command']
        : [REMOTE_FIELDS.find((field) => server[field] !== undefined), 'url'];
    if (misplaced) ctx.addIssue({ code: 'custom', path: [misplaced], message: `${misplaced} is for a bridge with a ${owner}` });
    for (const name of Object.keys(server.headers ?? {})) {
      if (!HEADER_NAME.test(name)) ctx.addIssue({ code: 'custom', path: ['headers', name], message: 'not an HTTP header name' });
    }
  });

export type BridgeServer = z.infer<typeof bridgeServerSchema>;

/** How to start a participant's process (the reference implementation's `space.yaml` fields). */
export const launchFieldsSchema = {
  /** Any program; it joins with the token the server hands it (`${TOKEN}`). */
  command: z.string().min(1).optional(),
  args: z.array(z.string()).optional(),
  env: z.record(z.string(), z.string()).optional(),
  /** Relative to the config file's folder. @default that folder */
  cwd: z.string().optional(),
  /** @default true when a command is given */
  auto_start: z.boolean().optional(),
  /** @default 'on-failure' */
  restart: z.enum(RESTART_POLICIES).optional(),
  /** An MCP server (a `command` speaking stdio, or a remote `url`) the server puts into the space through the MCP bridge. */
  bridge: bridgeServerSchema.optional(),
  /** The reference implementation's spelling of `bridge` (with `type: mcp-bridge`). */
  mcp_server: bridgeServerSchema.optional(),
  /** The reference implementation's bridge tuning: `init_timeout` (ms), `reconnect`, `max_reconnects` (a minute). */
  bridge_config: z
    .looseObject({
      init_timeout: z.number().int().positive().optional(),
      reconnect: z.boolean().optional(),
      max_reconnects: z.number().int().nonnegative().optional(),
    })
    .optional(),
  /** A MEWAgent (SDK layer 3) the server runs against an OpenAI-compatible endpoint, instead of a `command`. */
  agent: z
    .strictObject({
      model: z.string().min(1),
      /** @default the openai package's default (api.openai.com) */
      base_url: z.string().optional(),
      /** The environment variable that holds the API key (none needed for local servers). @default OPENAI_API_KEY */
      api_key_env: z
        .string()
        .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'an environment variable name')
        .optional(),
      system_prompt: z.string().optional(),
      prompts: z
        .strictObject({ system: z.string().optional(), reason: z.string().optional(), act: z.string().optional(), respond: z.string().optional() })
        .optional(),
      max_iterations: z.number().int().positive().optional(),
      /** Reported as `max_tokens`; compaction starts before it is reached. */
      context_window: z.number().int().positive().optional(),
      stream: z.boolean().optional(),
      max_replies_per_minute: z.number().int().positive().optional(),
      classify_chats: z.boolean().optional(),
      classification_threshold: z.number().min(0).max(1).optional(),
    })
    .optional(),
};

export type AgentEntry = NonNullable<z.infer<(typeof launchFieldsSchema)['agent']>>;

/** A participant's process, resolved from its config entry. */
export interface LaunchSpec {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
  autoStart: boolean;
  restart: RestartPolicyName;
  /** Exit codes after which it stays down whatever the policy (e.g. a usage or configuration error). */
  finalExitCodes?: ReadonlySet<number>;
  /** The exit code that asks to be started again at once (e.g. after `participant/restart`). */
  restartNowExitCode?: number;
  /** Why it cannot run as configured (e.g. an agent with no endpoint): not started, and its log says why. */
  notConfigured?: string;
}
