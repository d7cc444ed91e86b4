import { readFileSync } from 'node:fs';
import { basename, dirname, extname, resolve as resolvePath } from 'node:path';
import { load as loadYamlLeniently } from 'js-yaml';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { CapabilityError, normalizeCapability, type CapabilityPattern } from '../capabilities';
import { budgetLimitsSchema, PARTICIPANT_ID_PATTERN, type BudgetLimits } from '../protocol';
import type { ConfigSection } from './config-section';
import { gatewayLimitsSchema, type GatewayLimitsInput } from './gateway-options';
import { approvalPolicySchema, type ApprovalPolicy } from './approval-policy';
import { timeoutPolicySchema, type TimeoutPolicy } from '../rules/approval-rule';

/** A configured token: the operator's choice, so only non-empty (benchmarks and templates use short ones). */
const tokenSchema = z.string().min(1, 'a token cannot be empty');

const capabilityInput = z.union([z.string(), z.record(z.string(), z.unknown())]);

const participantFields = {
  /** Bearer tokens that authenticate as this participant. Omitted: one is minted and kept in the data directory. */
  tokens: z.array(tokenSchema).optional(),
  capabilities: z.array(capabilityInput).optional(),
  /** `directed`: receive only envelopes addressed to me or broadcast (MCPx routing modes). */
  routing: z.enum(['broadcast', 'directed']).optional(),
  /** What it may spend (tokens, usd, and the price of its tokens): enforced by the gateway from its statuses. */
  budget: budgetLimitsSchema.optional(),
  description: z.string().optional(),
  // Fields of the reference implementation's configs that mean nothing here; accepted so its templates load.
  type: z.string().optional(),
  ui_theme: z.unknown().optional(),
  default_to: z.unknown().optional(),
};

/** The config's schema, with each section's participant fields. */
function spaceConfigSchema(sections: readonly ConfigSection[]) {
  const participantSchema = z.strictObject(Object.assign({}, participantFields, ...sections.map((s) => s.participant.fields)) as typeof participantFields);
  return z.strictObject({
    space: z.strictObject({
      id: z.string().regex(PARTICIPANT_ID_PATTERN, 'space id: letters, digits, . _ : @ - (1-64 characters)'),
      name: z.string().optional(),
      description: z.string().optional(),
      /** The reference implementation's human participant: whose sign-in URL is printed, unless `dashboard` names one. */
      default_participant: z.string().optional(),
      /** The reference's terminal theme: no effect here. */
      ui_theme: z.unknown().optional(),
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
    /**
     * How many distinct participants approve a proposed tool call before the gateway lets it run, by risk level
     * (`safe`, `moderate`, `dangerous`: default 1) or by tool name (`tools: {"<glob>": n}`, which wins).
     */
    approvals: approvalPolicySchema.optional(),
    /** Tokens of the admin API (`/admin/spaces/{space}/...`). Omitted: one is minted and kept in the data directory. */
    admin: z.strictObject({ tokens: z.array(tokenSchema).optional() }).optional(),
    /** The gateway's limits in snake_case (`max_frame_bytes`…), checked by `gatewayLimitsSchema`. */
    limits: z.record(z.string(), z.unknown()).optional(),
  });
}

type ParsedConfig = z.infer<ReturnType<typeof spaceConfigSchema>>;

export interface ParticipantConfig {
  id: string;
  tokens?: string[];
  capabilities: CapabilityPattern[];
  routing: 'broadcast' | 'directed';
  budget?: BudgetLimits;
  description?: string;
  /** What each feature's config section read of the entry, by section name (`sectionOf`). */
  sections?: Readonly<Record<string, unknown>>;
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
  /** How many distinct approvers each proposed tool call needs (config `approvals`); absent: one. */
  approvals?: ApprovalPolicy;
  /** Where it was loaded from, for messages; undefined when built in code. */
  source?: string;
  /** Fields of the reference implementation's configs it accepted that have no effect here (printed at start). */
  ignored?: string[];
  /**
   * Set when the file is YAML the strict parser refuses but the reference implementation's (js-yaml) reads, as its
   * rendered templates need: what the strict parser said (printed at start).
   */
  readLeniently?: string;
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

/** How a config is read: the features' sections, the server's environment, where relative paths start. */
export interface ConfigReading {
  /** The sections of the features the server runs (`SpaceFeature.config`): their fields are accepted, and read. */
  sections?: readonly ConfigSection[];
  /** The server's environment, which `${NAME}` references a section reads must be able to fill. @default process.env */
  env?: Readonly<Record<string, string | undefined>>;
  /** Where relative paths in the config start. @default the config file's folder, else the working directory */
  baseDir?: string;
}

/** Reads a space config (YAML, or JSON by `.json` extension) and validates it. Throws SpaceConfigError. */
export function loadSpaceConfig(file: string, reading: ConfigReading = {}): SpaceConfig {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new SpaceConfigError(file, [], `cannot read: ${(e as Error).message}`);
  }
  let raw: unknown;
  let readLeniently: string | undefined;
  if (extname(file).toLowerCase() === '.json') {
    try {
      raw = JSON.parse(text);
    } catch (e) {
      throw new SpaceConfigError(file, [], `not valid JSON: ${(e as Error).message}`);
    }
  } else {
    ({ raw, readLeniently } = parseYamlText(text, file));
  }
  const config = parseSpaceConfig(raw, file, { baseDir: configBaseDir(file), ...reading });
  return readLeniently === undefined ? config : { ...config, readLeniently };
}

/**
 * YAML as strictly as `yaml` reads it, else as leniently as js-yaml, the reference implementation's parser: its
 * rendered templates hold what only js-yaml takes (the note-taker's multi-line prompt in a double-quoted scalar whose
 * lines start at column 0). A file neither reads is refused with the strict parser's words (its line and column).
 */
function parseYamlText(text: string, file: string): { raw: unknown; readLeniently?: string } {
  try {
    return { raw: parseYaml(text) };
  } catch (strict) {
    const problem = (strict as Error).message;
    try {
      return { raw: loadYamlLeniently(text, { filename: file }), readLeniently: firstLine(problem) };
    } catch {
      throw new SpaceConfigError(file, [], `not valid YAML: ${problem}`);
    }
  }
}

function firstLine(message: string): string {
  return message.split('\n', 1)[0].replace(/:$/, '');
}

/**
 * Where a config file's relative paths (`cwd`, observers' logs) start: its folder, or, for a config in a `.mew/`
 * folder (the reference implementation's layout, `.mew/space.yaml`), the project folder holding it, as the reference
 * resolves them.
 */
export function configBaseDir(file: string): string {
  const folder = dirname(resolvePath(file));
  return basename(folder) === '.mew' ? dirname(folder) : folder;
}

/** Validates an already parsed config object. */
export function parseSpaceConfig(raw: unknown, source = '(inline config)', reading: ConfigReading = {}): SpaceConfig {
  const sections = reading.sections ?? [];
  const parsed = spaceConfigSchema(sections).safeParse(raw);
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
    const at = { id, source, env: reading.env ?? process.env, baseDir: reading.baseDir ?? process.cwd() };
    const read = sections.flatMap((section) => {
      const value = p ? section.participant.read(p, at) : undefined;
      return value === undefined ? [] : [[section.name, value] as const];
    });
    return {
      id,
      tokens: p?.tokens,
      capabilities: p?.capabilities ? normalizeList(p.capabilities, source, ['participants', id, 'capabilities']) : defaults,
      routing: p?.routing ?? 'broadcast',
      ...(p?.budget !== undefined && { budget: p.budget }),
      ...(p?.description !== undefined && { description: p.description }),
      ...(read.length > 0 && { sections: Object.fromEntries(read) }),
    };
  });
  const supervisor = ruleSupervisor(cfg.automation, participants, source);
  if (supervisor?.implicit) participants.push(supervisor.implicit);
  if (cfg.dashboard && !participants.some((p) => p.id === cfg.dashboard!.sign_in_as)) {
    throw new SpaceConfigError(source, ['dashboard', 'sign_in_as'], `"${cfg.dashboard.sign_in_as}" is not a participant of this space`);
  }
  const defaultParticipant = cfg.space.default_participant;
  if (defaultParticipant !== undefined && !participants.some((p) => p.id === defaultParticipant)) {
    throw new SpaceConfigError(source, ['space', 'default_participant'], `"${defaultParticipant}" is not a participant of this space`);
  }
  return {
    id: cfg.space.id,
    name: cfg.space.name ?? cfg.space.id,
    participants,
    limits: parseLimits(cfg.limits ?? {}, source),
    adminTokens: cfg.admin?.tokens,
    signInAs: cfg.dashboard?.sign_in_as ?? defaultParticipant,
    ...(ignoredFields(cfg).length > 0 && { ignored: ignoredFields(cfg) }),
    supervisor: supervisor?.id,
    timeouts: cfg.automation?.timeouts,
    ...(cfg.approvals !== undefined && { approvals: cfg.approvals }),
    source,
  };
}

/** The reference implementation's fields this config has that do nothing here. */
function ignoredFields(cfg: ParsedConfig): string[] {
  const ignored = cfg.space.ui_theme === undefined ? [] : ['space.ui_theme'];
  for (const [id, p] of Object.entries(cfg.participants)) {
    for (const field of ['type', 'ui_theme', 'default_to'] as const) if (p?.[field] !== undefined) ignored.push(`participants.${id}.${field}`);
  }
  return ignored;
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
  automation: ParsedConfig['automation'],
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
