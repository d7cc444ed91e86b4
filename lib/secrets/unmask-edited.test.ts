import { describe, expect, it } from 'vitest';
import { maskedSecretsIn, maskText, maskValue } from './secret-masking';
import { secretsOf, unmaskEdited } from './unmask-edited';

const GITHUB = `ghp_${'A1b2C3d4E5'.repeat(3)}abcd12`;
/** Another token with the same prefix and last four characters: the same masked form. */
const LOOKALIKE = `ghp_${'Q9w8E7r6T5'.repeat(3)}abcd12`;
const PEM = '-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----';

/** What a person edits: the masked value, as text, changed by `edit`, parsed again. */
function edit<T>(original: T, change: (text: string) => string = (t) => t): unknown {
  return JSON.parse(change(JSON.stringify(maskValue(original), null, 2)));
}

describe('putting back the secrets an edit left masked', () => {
  it('lists what maskText replaces, with the form it shows', () => {
    const text = `push ${GITHUB} with key AKIAIOSFODNN7EXAMPLE and\n${PEM}`;
    const found = maskedSecretsIn(text);
    expect(found).toEqual([
      { secret: PEM, masked: '-----BEGIN PRIVATE KEY-----…' },
      { secret: GITHUB, masked: 'ghp_…cd12' },
      { secret: 'AKIAIOSFODNN7EXAMPLE', masked: 'AKIA…MPLE' },
    ]);
    expect(found.reduce((t, { secret, masked }) => t.replace(secret, masked), text)).toBe(maskText(text));
    expect(maskedSecretsIn('nothing here')).toEqual([]);
  });

  it('gives back the original when nothing was changed, secrets in free text and in secret-named fields alike', () => {
    const original = { repo: 'acme/site', token: GITHUB, auth: { password: 'hunter2' }, notes: [`use ${GITHUB}`, PEM], n: 3 };
    expect(unmaskEdited(edit(original), original)).toEqual({ value: original, unresolved: [] });
  });

  it('keeps the edits and puts the secrets back, also where the text around a masked form changed or moved', () => {
    const original = { repo: 'acme/site', token: GITHUB, message: `deploy with ${GITHUB}`, password: 'hunter2' };
    const edited = edit(original, (t) =>
      t.replace('acme/site', 'acme/blog').replace('deploy with', 'ship it with').replace('"password": "…"', '"password": "…", "copy": "again ghp_…cd12"'),
    );
    expect(unmaskEdited(edited, original)).toEqual({
      value: { repo: 'acme/blog', token: GITHUB, message: `ship it with ${GITHUB}`, password: 'hunter2', copy: `again ${GITHUB}` },
      unresolved: [],
    });
  });

  it('sends what the person typed in place of a masked secret', () => {
    const original = { token: GITHUB, text: 'hello' };
    const edited = edit(original, (t) => t.replace('…cd12', 'a-new-token-typed-here'));
    expect(unmaskEdited(edited, original).value).toEqual({ token: 'a-new-token-typed-here', text: 'hello' });
  });

  it('refuses to guess: a form standing for two secrets stays masked and listed; one standing for one is put back wherever it moved', () => {
    const twins = { a: `first ${GITHUB}`, b: `second ${LOOKALIKE}` };
    // Unchanged in place: each string gets its own back.
    expect(unmaskEdited(edit(twins), twins)).toEqual({ value: twins, unresolved: [] });
    // Changed: which of the two is `ghp_…cd12`?
    const changed = unmaskEdited(
      edit(twins, (t) => t.replace('first', 'one')),
      twins,
    );
    expect(changed.unresolved).toEqual(['ghp_…cd12']);
    expect(changed.value).toEqual({ a: 'one ghp_…cd12', b: `second ${LOOKALIKE}` });

    const short = { password: 'hunter2', pin: '1234' } as Record<string, string>;
    const moved = unmaskEdited({ secret_copy: '…', pin: '1234' }, short);
    expect(moved).toEqual({ value: { secret_copy: 'hunter2', pin: '1234' }, unresolved: [] });
    const twoShort = { password: 'hunter2', passphrase: 'swordfish' };
    expect(unmaskEdited({ other: '…' }, twoShort).unresolved).toEqual(['…']);
  });

  it('leaves a value without secrets as it was edited', () => {
    const original = { path: 'a.md', n: [1, 2] };
    expect(unmaskEdited({ path: 'b.md', n: [1, 2, 3], extra: null }, original)).toEqual({ value: { path: 'b.md', n: [1, 2, 3], extra: null }, unresolved: [] });
  });
});

describe('secretsOf', () => {
  it('lists each secret maskValue masks with the form shown in its place, longest first', () => {
    const token = `ghp_${'a1B2'.repeat(9)}`;
    expect(secretsOf({ note: `use ${token}`, password: 'hunter2', plain: 'nothing' })).toEqual([
      { secret: token, masked: `ghp_…${token.slice(-4)}` },
      { secret: 'hunter2', masked: '…' },
    ]);
    expect(secretsOf({ plain: 'nothing' })).toEqual([]);
  });
});
