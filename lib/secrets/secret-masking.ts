// Secrets never leave whole: what leaves the process or the database (webhooks, pushes, process logs, audit records
// and exports, telemetry) passes through here. Isomorphic (no Node imports): the control room masks its log too.

/** How much of a secret stays visible at its end: enough to tell two apart, never enough to use one. */
const VISIBLE_TAIL = 4;
/** Below this length a value in a secret-named field is masked whole (a tail would be most of it). */
const SHORT_SECRET = 12;

/**
 * Secret formats recognised anywhere in text: provider keys by their documented prefixes, private-key blocks and
 * JWTs. Each keeps its prefix when masked (`ghp_…abcd`), so a reader knows what kind of secret was there.
 */
const SECRET_SHAPES: readonly { pattern: RegExp; prefix: (match: string) => string; tail?: number }[] = [
  // A whole PEM block first (its base64 lines would otherwise be left as they are); its end says nothing, so no tail.
  { pattern: /-----BEGIN ((?:[A-Z]+ )*)PRIVATE KEY-----[\s\S]*?-----END \1PRIVATE KEY-----/g, prefix: (m) => m.slice(0, m.indexOf('KEY-----') + 8), tail: 0 },
  { pattern: /\bgithub_pat_[A-Za-z0-9_]{22,}/g, prefix: () => 'github_pat_' },
  { pattern: /\bgh[pousr]_[A-Za-z0-9]{30,}/g, prefix: (m) => m.slice(0, 4) },
  { pattern: /\bsk-(?:proj-|ant-(?:api\d+-)?)?[A-Za-z0-9_-]{20,}/g, prefix: (m) => m.slice(0, m.startsWith('sk-proj-') ? 8 : m.startsWith('sk-ant-') ? 7 : 3) },
  { pattern: /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g, prefix: (m) => m.slice(0, 4) },
  { pattern: /\bxox[abposr]-[A-Za-z0-9-]{10,}/g, prefix: (m) => m.slice(0, 5) },
  { pattern: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g, prefix: () => 'eyJ' },
];

/** Field names whose string values are secrets whatever they look like: `password`, `api_key`, `X-Auth-Token`… */
const SECRET_FIELD = /(?:^|[_\-.])?(?:pass(?:word|wd|phrase)?|secret|token|api[_-]?key|apikey|private[_-]?key|credentials?|authorization|cookie)$/i;

/** `ghp_…abcd`: the secret's known prefix, an ellipsis, and its last four characters. */
export function maskSecret(secret: string, prefix = '', tail = VISIBLE_TAIL): string {
  if (secret.length < SHORT_SECRET || tail === 0) return `${prefix}…`;
  return `${prefix}…${secret.slice(-tail)}`;
}

/** Whether a field of this name holds a secret whatever its value looks like. */
export function isSecretField(name: string): boolean {
  return SECRET_FIELD.test(name);
}

/** Text with every recognised secret masked; the same text when there is none (no copy). */
export function maskText(text: string): string {
  let masked = text;
  for (const { pattern, prefix, tail } of SECRET_SHAPES) {
    pattern.lastIndex = 0;
    if (!pattern.test(masked)) continue;
    pattern.lastIndex = 0;
    masked = masked.replace(pattern, (match) => maskSecret(match, prefix(match), tail));
  }
  return masked;
}

/**
 * What `maskText` replaces in `text`, in the order it replaces it: each recognised secret (as it stood when masked)
 * and the masked form shown in its place. For putting back what an edit of masked text left masked (unmask-edited.ts).
 */
export function maskedSecretsIn(text: string): { secret: string; masked: string }[] {
  const found: { secret: string; masked: string }[] = [];
  let masked = text;
  for (const { pattern, prefix, tail } of SECRET_SHAPES) {
    pattern.lastIndex = 0;
    if (!pattern.test(masked)) continue;
    pattern.lastIndex = 0;
    masked = masked.replace(pattern, (match) => {
      const form = maskSecret(match, prefix(match), tail);
      found.push({ secret: match, masked: form });
      return form;
    });
  }
  return found;
}

/**
 * A JSON value with secrets masked: recognised secrets in every string, and the whole string value of every field
 * named like a secret. Returns the value itself when nothing was masked.
 */
export function maskValue<T>(value: T): T {
  return mask(value, undefined, new WeakSet()) as T;
}

/** `seen`: objects on the current path; a cycle (which JSON cannot carry anyway) is left as it is. */
function mask(value: unknown, field: string | undefined, seen: WeakSet<object>): unknown {
  if (typeof value === 'string') return field !== undefined && isSecretField(field) && value.length > 0 ? maskSecret(value) : maskText(value);
  if (typeof value !== 'object' || value === null || seen.has(value)) return value;
  seen.add(value);
  try {
    return maskObject(value, field, seen);
  } finally {
    seen.delete(value);
  }
}

function maskObject(value: object, field: string | undefined, seen: WeakSet<object>): unknown {
  if (Array.isArray(value)) {
    let changed = false;
    const out = value.map((item) => {
      const masked = mask(item, field, seen);
      changed ||= masked !== item;
      return masked;
    });
    return changed ? out : value;
  }
  let changed = false;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    const masked = mask(item, key, seen);
    changed ||= masked !== item;
    out[key] = masked;
  }
  return changed ? out : value;
}
