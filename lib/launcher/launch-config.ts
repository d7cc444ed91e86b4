import { resolve as resolvePath } from 'node:path';
import { z } from 'zod';
import { bridgeProcess, type BridgeEntry } from '../bridge/bridge-process';
import { sectionOf, type ConfigSection, type ParticipantPlace } from '../gateway/config-section';
import { SpaceConfigError } from '../gateway/space-config';
import { agentProcess } from './agent-process';
import { expand, missingVariables } from './env-template';
import { launchFieldsSchema, type AgentEntry, type BridgeServer, type LaunchSpec } from './launch-spec';
import { RUNNER_EXIT_POLICY } from './runner-convention';

const launchSectionFields = {
  ...launchFieldsSchema,
  /** With `auto_connect: true` on a participant the server does not launch: where its observer writes what it receives. */
  output_log: z.string().optional(),
  /** The reference's observers: the server itself connects this participant and logs what it receives. */
  auto_connect: z.boolean().optional(),
};

type LaunchFields = z.infer<z.ZodObject<typeof launchSectionFields>>;

/** What the server runs for a participant: its process, or (nothing to launch) an observer logging what it receives. */
export interface LaunchedParticipant {
  /** Set when the server starts this participant's process. */
  launch?: LaunchSpec;
  /**
   * Set when the server connects this participant itself as an observer (`auto_connect: true`, nothing to launch):
   * every envelope it receives is appended to `outputLog` (absolute; the server picks one when the config names none).
   */
  observer?: { outputLog?: string };
}

/**
 * The launcher's fields of a participant entry (`command`, `bridge`/`mcp_server`, `agent` and their settings, the
 * reference's observers), read into what the server runs. A `${NAME}` nobody can fill is a config error at load.
 */
export const LAUNCH_SECTION: ConfigSection<LaunchedParticipant> = {
  name: 'launch',
  participant: {
    fields: launchSectionFields,
    read(entry, at) {
      const p = entry as LaunchFields;
      const ways = [p.command, p.bridge ?? p.mcp_server, p.agent].filter((how) => how !== undefined).length;
      if (ways > 1 || (p.bridge && p.mcp_server))
        throw new SpaceConfigError(at.source, ['participants', at.id, 'command'], 'give one of command, bridge (or mcp_server) and agent');
      if (ways === 1) return { launch: launchSpec(p, at) };
      if (p.auto_connect === true) return { observer: p.output_log === undefined ? {} : { outputLog: resolvePath(at.baseDir, p.output_log) } };
      return undefined;
    },
  },
};

/** What the server runs for a configured participant, if anything. */
export function launchedOf(participant: { sections?: Readonly<Record<string, unknown>> }): LaunchedParticipant {
  return sectionOf(participant, LAUNCH_SECTION) ?? {};
}

/**
 * A participant's process as the server will start it: its `command`, the MCP bridge running its `bridge`'s MCP
 * server (a command, or a remote server's url), or a MEWAgent with its `agent` settings. A `${NAME}` nobody can fill
 * is a config error now, named where it was written.
 */
function launchSpec(p: LaunchFields, { id, source, env, baseDir }: ParticipantPlace): LaunchSpec {
  const [bridgeKey, bridgeServer] = p.bridge ? (['bridge', p.bridge] as const) : p.mcp_server ? (['mcp_server', p.mcp_server] as const) : [];
  const bridge = bridgeServer && bridgeEntry(bridgeServer);
  type Template = [(string | number)[], string];
  const commandTemplates = (at: string[], fields: { command: string; args?: readonly string[]; env?: Record<string, string> }): Template[] => [
    [[...at, 'command'], fields.command],
    ...(fields.args ?? []).map((arg, i): Template => [[...at, 'args', i], arg]),
    ...Object.entries(fields.env ?? {}).map(([key, value]): Template => [[...at, 'env', key], value]),
  ];
  // A remote server's url and header values are filled like env when the bridge starts (a secret header: `${API_KEY}`).
  const remoteTemplates = (at: string[], fields: { url: string; headers?: Record<string, string> }): Template[] => [
    [[...at, 'url'], fields.url],
    ...Object.entries(fields.headers ?? {}).map(([name, value]): Template => [[...at, 'headers', name], value]),
  ];
  const templates: Template[] = p.agent
    ? [[['agent', 'model'], p.agent.model], ...(p.agent.base_url !== undefined ? [[['agent', 'base_url'], p.agent.base_url] as Template] : [])]
    : bridge
      ? 'url' in bridge
        ? remoteTemplates([bridgeKey!], bridge)
        : commandTemplates([bridgeKey!], bridge)
      : commandTemplates([], { command: p.command!, args: p.args, env: p.env });
  for (const [path, template] of templates) {
    const [missing] = missingVariables(template, env);
    if (missing) {
      throw new SpaceConfigError(
        source,
        ['participants', id, ...path],
        `environment variable ${missing} is not set (write \${${missing}:-default} to give it a default)`,
      );
    }
  }
  // A url with no ${NAME} in it is checked now; one filled at start is checked by the bridge (a usage error, left down).
  if (bridge && 'url' in bridge && !bridge.url.includes('${') && !isHttpUrl(bridge.url)) {
    throw new SpaceConfigError(source, ['participants', id, bridgeKey!, 'url'], 'not an http:// or https:// URL');
  }
  const tuning = p.bridge_config;
  const process = bridge
    ? bridgeProcess(bridge, {
        ...(tuning?.init_timeout !== undefined && { initializeTimeoutMs: tuning.init_timeout }),
        ...((tuning?.reconnect === false || tuning?.max_reconnects !== undefined) && { maxRestarts: tuning.reconnect === false ? 0 : tuning.max_reconnects }),
      })
    : p.agent
      ? agentProcess(expandAgent(p.agent, env), env)
      : { command: p.command!, args: p.args ?? [], env: p.env ?? {}, ...RUNNER_EXIT_POLICY };
  return {
    ...process,
    cwd: resolvePath(baseDir, bridgeServer?.cwd ?? p.cwd ?? '.'),
    autoStart: p.auto_start ?? true,
    restart: p.restart ?? 'on-failure',
  };
}

/** A `bridge:` entry as the bridge's process takes it: its schema admits exactly one of `command` and `url`. */
function bridgeEntry(server: BridgeServer): BridgeEntry {
  if (server.url !== undefined) return { url: server.url, headers: server.headers, ...(server.transport && { transport: server.transport }) };
  return { command: server.command!, args: server.args, env: server.env };
}

function isHttpUrl(text: string): boolean {
  try {
    return ['http:', 'https:'].includes(new URL(text).protocol);
  } catch {
    return false;
  }
}

/** An agent's model and endpoint may come from the environment (`${MEW_AGENT_BASE_URL:-}`): filled at load. */
function expandAgent(agent: AgentEntry, env: Readonly<Record<string, string | undefined>>): AgentEntry {
  const fill = (template: string) => expand(template, {}, env);
  return { ...agent, model: fill(agent.model), ...(agent.base_url !== undefined && { base_url: fill(agent.base_url) }) };
}
