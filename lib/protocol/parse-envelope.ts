import type { z } from 'zod';
import { envelopeSchema, inboundEnvelopeSchema, RFC3339_PATTERN, type AnyEnvelope, type InboundEnvelope } from './envelope';
import { isKind, REQUIRED_ENVELOPE_FIELDS, type RequiredEnvelopeField } from './kinds';
import { payloadSchemas } from './payloads';
import { PROTOCOL_VERSION } from './version';
import { isWellFormedText } from './well-formed-text';

/** One problem with an envelope; payload problems have paths starting with `'payload'`. */
export type EnvelopeIssue = { path: (string | number)[]; message: string };

export type ParseEnvelopeOptions = {
  /** Accept a client-submitted envelope: `protocol`, `id`, `ts`, `from` may be omitted (the gateway fills them). */
  inbound?: boolean;
};

export type ParseEnvelopeResult<E = AnyEnvelope> = { ok: true; envelope: E } | { ok: false; issues: EnvelopeIssue[] };

/**
 * Validates an envelope (already JSON-parsed) and its kind's payload, reporting every problem found.
 *
 * On success `envelope` is the very object passed in, unchanged: zod's output copies are discarded so unknown
 * payload fields survive and the gateway can forward the original bytes. Runs for every message, so valid
 * envelopes take a hand-written check of the top-level fields and zod only for the payload; zod's envelope
 * schema runs only to explain a failure (and stays the authority if the two ever disagree).
 */
export function parseEnvelope(value: unknown, options: ParseEnvelopeOptions & { inbound: true }): ParseEnvelopeResult<InboundEnvelope>;
export function parseEnvelope(value: unknown, options?: ParseEnvelopeOptions & { inbound?: false }): ParseEnvelopeResult<AnyEnvelope>;
export function parseEnvelope(value: unknown, options?: ParseEnvelopeOptions): ParseEnvelopeResult<AnyEnvelope | InboundEnvelope>;
export function parseEnvelope(value: unknown, options?: ParseEnvelopeOptions): ParseEnvelopeResult<AnyEnvelope | InboundEnvelope> {
  const inbound = options?.inbound === true;
  let issues: EnvelopeIssue[] | undefined;

  if (!hasValidEnvelopeFields(value, inbound)) {
    const result = (inbound ? inboundEnvelopeSchema : envelopeSchema).safeParse(value);
    if (!result.success) issues = flattenIssues(result.error.issues, value, []);
  }

  // The payload is checked whenever the kind is known, so one reply lists envelope and payload problems together.
  const kind = isRecord(value) ? value.kind : undefined;
  if (isKind(kind)) {
    const field = REQUIRED_ENVELOPE_FIELDS.get(kind);
    if (field !== undefined && isAbsentOrEmpty((value as Record<string, unknown>)[field])) {
      (issues ??= []).push({ path: [field], message: `Required: ${kind} ${REQUIRED_FIELD_REASON[field]}` });
    }
    const payload = (value as Record<string, unknown>).payload;
    const result = payloadSchemas[kind].safeParse(payload);
    if (!result.success) (issues ??= []).push(...flattenIssues(result.error.issues, payload, ['payload']));
  }

  if (issues) return { ok: false, issues };
  return { ok: true, envelope: value as AnyEnvelope };
}

/** True when `value` is a complete, valid envelope (not the inbound form). */
export function isEnvelope(value: unknown): value is AnyEnvelope {
  return parseEnvelope(value).ok;
}

/** Issues as one human line: `payload.capabilities[0].kind: expected ...; to: Required`. */
export function formatIssues(issues: readonly EnvelopeIssue[]): string {
  return issues.map((issue) => (issue.path.length ? `${formatIssuePath(issue.path)}: ${issue.message}` : issue.message)).join('; ');
}

/** A path as one string: `payload.capabilities[0].kind`. */
export function formatIssuePath(path: readonly (string | number)[]): string {
  let out = '';
  for (const segment of path) {
    out += typeof segment === 'number' ? `[${segment}]` : out ? `.${segment}` : segment;
  }
  return out;
}

/** Why a kind needs the field, for the issue's message. */
const REQUIRED_FIELD_REASON: Record<RequiredEnvelopeField, string> = {
  correlation_id: 'MUST reference the envelope it answers in "correlation_id"',
  context: 'MUST name the reasoning/start it ends in "context"',
};

// An empty array or string references nothing, so it does not satisfy a MUST reference.
function isAbsentOrEmpty(value: unknown): boolean {
  return value === undefined || value === '' || (Array.isArray(value) && value.length === 0);
}

const ENVELOPE_KEYS: ReadonlySet<string> = new Set(Object.keys(envelopeSchema.shape));

/** The fast path: plain typeof checks equivalent to `envelopeSchema` (or the inbound one) minus the payload. */
function hasValidEnvelopeFields(value: unknown, inbound: boolean): boolean {
  if (!isRecord(value)) return false;
  for (const key in value) if (!ENVELOPE_KEYS.has(key)) return false;
  const { protocol, id, ts, from, to, correlation_id, context, cursor } = value;
  if (protocol === undefined ? !inbound : protocol !== PROTOCOL_VERSION) return false;
  if (id === undefined ? !inbound : !isNonEmptyString(id)) return false;
  if (ts === undefined ? !inbound : typeof ts !== 'string' || !RFC3339_PATTERN.test(ts)) return false;
  if (from === undefined ? !inbound : !isNonEmptyString(from)) return false;
  if (!isKind(value.kind)) return false;
  if (to !== undefined && !isNonEmptyStringArray(to)) return false;
  if (correlation_id !== undefined && !isNonEmptyStringArray(correlation_id)) return false;
  if (context !== undefined && (typeof context !== 'string' || !isWellFormedText(context))) return false;
  if (cursor !== undefined && (inbound || !isNonEmptyString(cursor))) return false;
  return true;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isNonEmptyString(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0 && isWellFormedText(value);
}

function isNonEmptyStringArray(value: unknown): boolean {
  if (!Array.isArray(value)) return false;
  for (let i = 0; i < value.length; i++) if (!isNonEmptyString(value[i])) return false;
  return true;
}

/**
 * zod issues → flat `EnvelopeIssue`s. Unknown keys get one issue each at their own path; a union failure is
 * explained by the one branch that matched the value's shape, when there is one; a missing value says `Required`.
 */
function flattenIssues(zodIssues: readonly z.core.$ZodIssue[], root: unknown, prefix: (string | number)[]): EnvelopeIssue[] {
  const out: EnvelopeIssue[] = [];
  for (const issue of zodIssues) {
    const path = [...prefix, ...issue.path.map((segment) => (typeof segment === 'symbol' ? String(segment) : segment))];
    const relative = path.slice(prefix.length);
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) out.push({ path: [...path, key], message: `unknown field "${key}"` });
    } else if (issue.code === 'invalid_union') {
      const shaped = issue.errors.filter((branch) => !branch.every(isRootTypeMismatch));
      if (shaped.length === 1) out.push(...flattenIssues(shaped[0]!, valueAt(root, relative), path));
      else out.push({ path, message: issue.message });
    } else if ((issue.code === 'invalid_type' || issue.code === 'invalid_value') && valueAt(root, relative) === undefined) {
      out.push({ path, message: 'Required' });
    } else {
      out.push({ path, message: issue.message });
    }
  }
  return out;
}

function isRootTypeMismatch(issue: z.core.$ZodIssue): boolean {
  return issue.code === 'invalid_type' && issue.path.length === 0;
}

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let current = root;
  for (const segment of path) {
    if (typeof current !== 'object' || current === null) return undefined;
    current = (current as Record<PropertyKey, unknown>)[segment];
  }
  return current;
}
