import { readFileSync } from 'node:fs';
import { dirname, extname, resolve as resolvePath } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { CapabilityError, normalizeCapability, type CapabilityPattern } from '../capabilities';
import { expand, missingVariables } from '../launcher/env-template';
import { bridgeProcess } from '../bridge/bridge-process';
import { agentProcess } from '../launcher/agent-process';
import { launchFieldsSchema, type AgentEntry, type LaunchSpec } from '../launcher/launch-spec';
import { budgetLimitsSchema, PARTICIPANT_ID_PATTERN, type BudgetLimits } from '../protocol';
import { gatewayLimitsSchema, type GatewayLimitsInput } from './gateway-options';
import { timeoutPolicySchema, type TimeoutPolicy } from '../rules/approval-rule';

/** A configured token: the operator's choice, so only non-empty (benchmarks and templates use short ones). */
const tokenSchema = z.string().min(1, 'a token cannot be empty');

const capabilityInput = z.union([z.string(), z.record(z.string(), z.unknown())]);

const participantSchema = z
  .strictObject({
    /** Bearer tokens that authenticate as this participant. Omitted: one is minted and kept in the data directory. */
    tokens: z.array(tokenSchema).optional(),
    capabilities: z.array(capabilityInput).optional(),
    /** `directed`: receive only envelopes addressed to me or broadcast (MCPx routing modes). */
    routing: z.enum(['broadcast', 'directed']).optional(),
    /** What it may spend (tokens, usd, and the price of its tokens): enforced by the gateway from its statuses. */
    budget: budgetLimitsSchema.optional(),
    /** How the server starts it, if it does. */
    ...launchFieldsSchema,
    description: z.string().optional(),
    // Fields of the reference implementation's configs that mean nothing here; accepted so its templates load.
    type: z.string().optional(),
    ui_theme: z.unknown().optional(),
    default_to: z.unknown().optional(),
    /** With `auto_connect: true` on a participant the server does not launch: where its observer writes what it receives. */
    output_log: z.string().optional(),
    /** The reference's observers: the server itself connects this participant and logs what it receives. */
    auto_connect: z.boolean().optional(),
  })
  .refine((p) => [p.command, p.bridge ?? p.mcp_server, p.agent].filter((how) => how !== undefined).length <= 1 && !(p.bridge && p.mcp_server), {
    message: 'give one of command, bridge (or mcp_server) and agent',
    path: ['command'],
  });

const spaceConfigSchema = z.strictObject({
  space: z.strictObject({
    id: z.string().regex(PARTICIPANT_ID_PATTERN, 'space id: letters, digits, . _ : @ - (1-64 characters)'),
    name: z.string().optional(),
    description: z.string().optional(),
  }),
  participants: z.record(z.string(), participantSchema.nullable()),
  defaults: z.strictObject({ capabilities: z.array(capabilityInput).optional() }).optional(),
  /** The participant whose sign-in URL the server prints at start (the human supervisor of the control room). */
  dashboard: z.strictObject({ sign_in_as: z.string() }).optional(),
  /**
   * The rule supervisor, which applies the space's approval rules. Every space has one unless `supervisor: false`:
   * omitted (or `true`), the gateway adds the participant `rules` with exactly what it needs; a participant id names
   * a configured participant instead (its capabilities are the config's: it needs mcp/request, mcp/reject and chat).
   */
  automation: z.strictObject({ supervisor: z.union([z.string(), z.boolean()]).optional(), timeouts: timeoutPolicySchema.optional() }).optional(),
  /** Tokens of the admin API (`/admin/spaces/{space}/...`). Omitted: one is minted and kept in the data directory. */
  admin: z.strictObject({ tokens: z.array(tokenSchema).optional() }).optional(),
  /** The gateway's limits in snake_case (`max_frame_bytes`…), checked by `gatewayLimitsSchema`. */
  limits: z.record(z.string(), z.unknown()).optional(),
});

export interface ParticipantConfig {
  id: string;
  tokens?: string[];
  capabilities: CapabilityPattern[];
  routing: 'broadcast' | 'directed';
  budget?: BudgetLimits;
  description?: string;
  /** Set when the server starts this participant's process. */
  launch?: LaunchSpec;
  /**
   * Set when the server connects this participant itself as an observer (`auto_connect: true`, nothing to launch):
   * every envelope it receives is appended to `outputLog` (absolute; the server picks one when the config names none).
   */
  observer?: { outputLog?: string };
}

export interface SpaceConfig {
  id: string;
  name: string;
  participants: ParticipantConfig[];
  limits: GatewayLimitsInput;
  adminTokens?: string[];
  /** Participant id the printed sign-in URL authenticates as. */
  signInAs?: string;
  /**
   * Participant id the server runs to apply the approval rules: `automation.supervisor`, or the implicit
   * `IMPLICIT_SUPERVISOR_ID` the gateway adds. Undefined only when the config turns it off (`supervisor: false`).
   */
  supervisor?: string;
  /** What the supervisor does with proposals nobody decides in time, by risk level. */
  timeouts?: TimeoutPolicy;
  /** Where it was loaded from, for messages; undefined when built in code. */
  source?: string;
}

/** A config that cannot be used; the message names the file, the path inside it and what is wrong. */
export class SpaceConfigError extends Error {
  constructor(
    readonly source: string,
    readonly path: (string | number)[],
    problem: string,
  ) {
    super(`${source}: ${path.length ? path.join('.') : '(root)'}: ${problem}`);
    this.name = 'SpaceConfigError';
  }
}

/** Reads a space config (YAML, or JSON by `.json` extension) and validates it. Throws SpaceConfigError. */
export function loadSpaceConfig(file: string): SpaceConfig {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new SpaceConfigError(file, [], `cannot read: ${(e as Error).message}`);
  }
  let raw: unknown;
  try {
    raw = extname(file).toLowerCase() === '.json' ? JSON.parse(text) : parseYaml(text);
  } catch (e) {
    throw new SpaceConfigError(file, [], `not valid ${extname(file) === '.json' ? 'JSON' : 'YAML'}: ${(e as Error).message}`);
  }
  return parseSpaceConfig(raw, file, { baseDir: dirname(resolvePath(file)) });
}

/**
 * Validates an already parsed config object. `env` is the server's environment, which `${NAME}` references in
 * launched participants' commands must be able to fill; `baseDir` is where their relative `cwd` starts.
 */
export function parseSpaceConfig(
  raw: unknown,
  source = '(inline config)',
  options: { env?: Readonly<Record<string, string | undefined>>; baseDir?: string } = {},
): SpaceConfig {
  const parsed = spaceConfigSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new SpaceConfigError(source, issue.path as (string | number)[], issue.message);
  }
  const cfg = parsed.data;
  const defaults = normalizeList(cfg.defaults?.capabilities ?? [], source, ['defaults', 'capabilities']);
  const seenTokens = new Set<string>();
  const participants = Object.entries(cfg.participants).map(([id, p]): ParticipantConfig => {
    if (!PARTICIPANT_ID_PATTERN.test(id)) {
      throw new SpaceConfigError(source, ['participants', id], 'invalid participant id: use 1-64 letters, digits, . _ : @ - (not "." or "..")');
    }
    for (const [i, token] of (p?.tokens ?? []).entries()) {
      if (seenTokens.has(token)) throw new SpaceConfigError(source, ['participants', id, 'tokens', i], 'token is used by another participant');
      seenTokens.add(token);
    }
    const launched = p?.command !== undefined || p?.bridge !== undefined || p?.mcp_server !== undefined || p?.agent !== undefined;
    return {
      id,
      tokens: p?.tokens,
      capabilities: p?.capabilities ? normalizeList(p.capabilities, source, ['participants', id, 'capabilities']) : defaults,
      routing: p?.routing ?? 'broadcast',
      ...(p?.budget !== undefined && { budget: p.budget }),
      ...(p?.description !== undefined && { description: p.description }),
      ...(launched && { launch: launchSpec(p, id, source, options.env ?? process.env, options.baseDir ?? process.cwd()) }),
      ...(!launched &&
        p?.auto_connect === true && { observer: p.output_log === undefined ? {} : { outputLog: resolvePath(options.baseDir ?? process.cwd(), p.output_log) } }),
    };
  });
  const supervisor = ruleSupervisor(cfg.automation, participants, source);
  if (supervisor?.implicit) participants.push(supervisor.implicit);
  if (cfg.dashboard && !participants.some((p) => p.id === cfg.dashboard!.sign_in_as)) {
    throw new SpaceConfigError(source, ['dashboard', 'sign_in_as'], `"${cfg.dashboard.sign_in_as}" is not a participant of this space`);
  }
  return {
    id: cfg.space.id,
    name: cfg.space.name ?? cfg.space.id,
    participants,
    limits: parseLimits(cfg.limits ?? {}, source),
    adminTokens: cfg.admin?.tokens,
    signInAs: cfg.dashboard?.sign_in_as,
    supervisor: supervisor?.id,
    timeouts: cfg.automation?.timeouts,
    source,
  };
}

/** The id of the rule supervisor the gateway adds to a space whose config names none (`automation.supervisor`). */
export const IMPLICIT_SUPERVISOR_ID = 'rules';

/**
 * What the implicit rule supervisor may send, and no more: fulfilling a proposal is an `mcp/request` of the
 * proposal's own method (and `tools/list` reads a tool's risk), rejecting one is an `mcp/reject`, and a `chat`
 * carries a rejection's explanation and an escalation of what nobody decided in time.
 */
export const SUPERVISOR_CAPABILITIES: CapabilityPattern[] = [{ kind: ['mcp/request', 'mcp/reject', 'chat'] }];

/**
 * The space's rule supervisor: the participant `automation.supervisor` names, the implicit one (omitted or `true`,
 * with its participant entry to add), or none (`false`).
 */
function ruleSupervisor(
  automation: z.infer<typeof spaceConfigSchema>['automation'],
  participants: readonly ParticipantConfig[],
  source: string,
): { id: string; implicit?: ParticipantConfig } | undefined {
  const named = automation?.supervisor;
  if (named === false) {
    if (automation?.timeouts)
      throw new SpaceConfigError(source, ['automation', 'timeouts'], 'timeouts are applied by the rule supervisor, which `supervisor: false` turns off');
    return undefined;
  }
  if (typeof named === 'string') {
    if (!participants.some((p) => p.id === named))
      throw new SpaceConfigError(source, ['automation', 'supervisor'], `"${named}" is not a participant of this space`);
    return { id: named };
  }
  if (participants.some((p) => p.id === IMPLICIT_SUPERVISOR_ID)) {
    throw new SpaceConfigError(
      source,
      ['participants', IMPLICIT_SUPERVISOR_ID],
      `"${IMPLICIT_SUPERVISOR_ID}" is the id of the rule supervisor the gateway adds: name it the supervisor (automation.supervisor: ${IMPLICIT_SUPERVISOR_ID}), or turn the supervisor off (automation.supervisor: false)`,
    );
  }
  return {
    id: IMPLICIT_SUPERVISOR_ID,
    implicit: {
      id: IMPLICIT_SUPERVISOR_ID,
      capabilities: SUPERVISOR_CAPABILITIES,
      routing: 'broadcast',
      description: "Applies the space's approval rules (added by the gateway: automation.supervisor)",
    },
  };
}

/**
 * A participant's process as the server will start it: its `command`, the MCP bridge running its `bridge`'s MCP
 * server, or a MEWAgent with its `agent` settings. A `${NAME}` nobody can fill is a config error now, named where it
 * was written.
 */
function launchSpec(
  p: z.infer<typeof participantSchema>,
  id: string,
  source: string,
  env: Readonly<Record<string, string | undefined>>,
  baseDir: string,
): LaunchSpec {
  const [bridgeKey, bridge] = p.bridge ? (['bridge', p.bridge] as const) : p.mcp_server ? (['mcp_server', p.mcp_server] as const) : [];
  type Template = [(string | number)[], string];
  const commandTemplates = (at: string[], fields: { command: string; args?: string[]; env?: Record<string, string> }): Template[] => [
    [[...at, 'command'], fields.command],
    ...(fields.args ?? []).map((arg, i): Template => [[...at, 'args', i], arg]),
    ...Object.entries(fields.env ?? {}).map(([key, value]): Template => [[...at, 'env', key], value]),
  ];
  const templates: Template[] = p.agent
    ? [[['agent', 'model'], p.agent.model], ...(p.agent.base_url !== undefined ? [[['agent', 'base_url'], p.agent.base_url] as Template] : [])]
    : bridge
      ? commandTemplates([bridgeKey!], bridge)
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
  const tuning = p.bridge_config;
  const process = bridge
    ? bridgeProcess(bridge, {
        ...(tuning?.init_timeout !== undefined && { initializeTimeoutMs: tuning.init_timeout }),
        ...((tuning?.reconnect === false || tuning?.max_reconnects !== undefined) && { maxRestarts: tuning.reconnect === false ? 0 : tuning.max_reconnects }),
      })
    : p.agent
      ? agentProcess(expandAgent(p.agent, env), env)
      : { command: p.command!, args: p.args ?? [], env: p.env ?? {} };
  return {
    ...process,
    cwd: resolvePath(baseDir, bridge?.cwd ?? p.cwd ?? '.'),
    autoStart: p.auto_start ?? true,
    restart: p.restart ?? 'on-failure',
  };
}

/** An agent's model and endpoint may come from the environment (`${MEW_AGENT_BASE_URL:-}`): filled at load. */
function expandAgent(agent: AgentEntry, env: Readonly<Record<string, string | undefined>>): AgentEntry {
  const fill = (template: string) => expand(template, {}, env);
  return { ...agent, model: fill(agent.model), ...(agent.base_url !== undefined && { base_url: fill(agent.base_url) }) };
}

/** The config's snake_case limits, checked by the gateway's own schema; errors name the key as written. */
function parseLimits(block: Record<string, unknown>, source: string): GatewayLimitsInput {
  const limits = Object.fromEntries(Object.entries(block).map(([key, value]) => [key.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase()), value]));
  const parsed = gatewayLimitsSchema.safeParse(limits);
  if (parsed.success) return limits as GatewayLimitsInput;
  const issue = parsed.error.issues[0];
  const snake = (key: PropertyKey) => String(key).replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
  const path = issue.code === 'unrecognized_keys' ? [snake(issue.keys[0])] : issue.path.map((p, i) => (i === 0 ? snake(p) : (p as string | number)));
  const message = issue.code === 'unrecognized_keys' ? 'unknown limit' : issue.message;
  throw new SpaceConfigError(source, ['limits', ...path], message);
}

function normalizeList(list: unknown[], source: string, at: (string | number)[]): CapabilityPattern[] {
  return list.map((c, i) => {
    try {
      return normalizeCapability(c);
    } catch (e) {
      if (e instanceof CapabilityError) throw new SpaceConfigError(source, [...at, i, ...e.path], e.message);
      throw e;
    }
  });
}
