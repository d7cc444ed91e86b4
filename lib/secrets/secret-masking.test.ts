import { describe, expect, it } from 'vitest';
import { maskSecret, maskText, maskValue } from './secret-masking';

const GITHUB = `ghp_${'A1b2C3d4E5'.repeat(3)}abcd12`;
const PAT = `github_pat_${'11ABCDEFG0'.repeat(3)}_xyz9`;
const OPENAI = `sk-proj-${'Zz9Yy8Xx7W'.repeat(4)}`;
const JWT = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c';
const PEM = '-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7\nabcdEFGH\n-----END RSA PRIVATE KEY-----';

describe('secrets never leave whole', () => {
  it('masks each known format in text, keeping its prefix and last four characters', () => {
    expect(maskText(`push with ${GITHUB} please`)).toBe(`push with ghp_…cd12 please`);
    expect(maskText(PAT)).toBe('github_pat_…xyz9');
    expect(maskText(`OPENAI_API_KEY=${OPENAI}`)).toBe('OPENAI_API_KEY=sk-proj-…Xx7W');
    expect(maskText('key AKIAIOSFODNN7EXAMPLE here')).toBe('key AKIA…MPLE here');
    expect(maskText('xoxb-123456789012-abcdefghij')).toBe('xoxb-…ghij');
    expect(maskText(`Bearer ${JWT}`)).toBe(`Bearer eyJ…${JWT.slice(-4)}`);
    expect(maskText(`key:\n${PEM}\nend`)).toBe('key:\n-----BEGIN RSA PRIVATE KEY-----…\nend');
    const plain = 'nothing secret here: sk-short, ghp_, a path/to/file';
    expect(maskText(plain)).toBe(plain);
  });

  it('masks values of secret-named fields whole, deep in arguments, and returns the same object when nothing is secret', () => {
    const args = { path: 'notes/a.md', auth: { password: 'hunter2', api_key: 'abcdefghijklmnop' }, headers: [{ Authorization: `token ${GITHUB}` }] };
    expect(maskValue(args)).toEqual({ path: 'notes/a.md', auth: { password: '…', api_key: '…mnop' }, headers: [{ Authorization: '…cd12' }] });
    const clean = { path: 'notes/a.md', tokens_used: 3, text: 'hello' };
    expect(maskValue(clean)).toBe(clean);
    expect(maskSecret('abcdefghijklmnopqrstuvwxyz', 'x_')).toBe('x_…wxyz');
  });
});
