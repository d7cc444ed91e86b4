import { isSecretField, maskedSecretsIn, maskSecret, maskValue } from './secret-masking';

const isRecordLike = (value: unknown): value is object => typeof value === 'object' && value !== null;

/** An edit of a masked value with its secrets put back, and the masked forms that could not be. */
export interface UnmaskedEdit<T> {
  value: T;
  /** Masked forms (`ghp_…abcd`, `…`) left in `value` because each stands for several secrets of the original. */
  unresolved: string[];
}

/**
 * Puts back the secrets an edit left masked, for a person who edits a value they were shown masked (edit-then-approve
 * of a proposal whose arguments hold a secret): `edited` started as `maskValue(original)`. A string still equal to its
 * masked self at the same place gets its original back; elsewhere (a changed string, a new field) each masked form
 * (`ghp_…abcd`, `…wxyz`; a short secret's bare `…` only as a whole string) is replaced by the one secret of `original`
 * it stands for. A form standing for several secrets cannot be put back: it stays, and is listed in `unresolved` (the
 * caller refuses to send it; revealing the original lets the person edit it whole).
 *
 * @example
 * const original = { repo: 'acme', token: 'ghp_…' }; // with a real token
 * unmaskEdited({ repo: 'acme/site', token: '…wxyz' }, original); // { value: { repo: 'acme/site', token: <the token> }, unresolved: [] }
 */
export function unmaskEdited<T>(edited: T, original: unknown): UnmaskedEdit<T> {
  const secrets = new Map<string, Set<string>>();
  collect(original, undefined, secrets, new WeakSet());
  // Longest first: `ghp_…abcd` is put back before a field's `…abcd` could match its end.
  const forms = [...secrets.keys()].filter((form) => form.length > 1).sort((a, b) => b.length - a.length);
  const unresolved = new Set<string>();
  const substitute = (text: string): string => {
    if (secrets.has(text) && !forms.includes(text)) return only(text, secrets, unresolved) ?? text;
    let out = text;
    for (const form of forms) {
      if (!out.includes(form)) continue;
      const secret = only(form, secrets, unresolved);
      if (secret !== undefined) out = out.split(form).join(secret);
    }
    return out;
  };
  const value = restore(edited, original, maskValue(original), substitute) as T;
  return { value, unresolved: [...unresolved] };
}

/**
 * Every secret `maskValue` masks in `value` (recognised formats anywhere, the whole string of a secret-named field),
 * each with the masked form shown in its place, longest secret first: for masking the same secrets where they were
 * copied into other text (a rule's name describing the arguments it pins).
 */
export function secretsOf(value: unknown): { secret: string; masked: string }[] {
  const secrets = new Map<string, Set<string>>();
  collect(value, undefined, secrets, new WeakSet());
  return [...secrets].flatMap(([masked, all]) => [...all].map((secret) => ({ secret, masked }))).sort((a, b) => b.secret.length - a.secret.length);
}

/** The one secret a masked form stands for; undefined (and the form noted) when it stands for several. */
function only(form: string, secrets: Map<string, Set<string>>, unresolved: Set<string>): string | undefined {
  const all = secrets.get(form);
  if (all?.size === 1) return all.values().next().value;
  unresolved.add(form);
  return undefined;
}

/** Every secret `maskValue` masks in `value`, by the masked form it shows. */
function collect(value: unknown, field: string | undefined, out: Map<string, Set<string>>, seen: WeakSet<object>): void {
  const add = (form: string, secret: string) => {
    const set = out.get(form) ?? new Set<string>();
    set.add(secret);
    out.set(form, set);
  };
  if (typeof value === 'string') {
    if (field !== undefined && isSecretField(field) && value.length > 0) add(maskSecret(value), value);
    else for (const { secret, masked } of maskedSecretsIn(value)) add(masked, secret);
    return;
  }
  if (!isRecordLike(value) || seen.has(value)) return;
  seen.add(value);
  if (Array.isArray(value)) for (const item of value) collect(item, field, out, seen);
  else for (const [key, item] of Object.entries(value)) collect(item, key, out, seen);
  seen.delete(value);
}

/** `edited` with its strings put back: by place where `masked` has the same string, else by masked form. */
function restore(edited: unknown, original: unknown, masked: unknown, substitute: (text: string) => string): unknown {
  if (typeof edited === 'string') return typeof masked === 'string' && edited === masked && typeof original === 'string' ? original : substitute(edited);
  if (Array.isArray(edited)) {
    const same = Array.isArray(original) && Array.isArray(masked);
    return edited.map((item, i) => restore(item, same ? original[i] : undefined, same ? masked[i] : undefined, substitute));
  }
  if (isRecordLike(edited)) {
    const same = isRecordLike(original) && !Array.isArray(original) && isRecordLike(masked) && !Array.isArray(masked);
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(edited)) {
      const known = same && Object.hasOwn(original, key);
      out[key] = restore(
        item,
        known ? (original as Record<string, unknown>)[key] : undefined,
        known ? (masked as Record<string, unknown>)[key] : undefined,
        substitute,
      );
    }
    return out;
  }
  return edited;
}
