import { describe, expect, it } from 'vitest';
import { chatVerdict, classificationSaysRespond, mentions, ReplyRateLimiter } from './chat-response-strategy';

const chat = (text: string, extra: { from?: string; to?: string[] } = {}) => ({
  id: 'c',
  from: extra.from ?? 'alice',
  text,
  ...(extra.to && { to: extra.to }),
});

describe('chatVerdict', () => {
  it('answers chats addressed to me or mentioning @me, never my own', () => {
    expect(chatVerdict(chat('hi', { to: ['coder'] }), 'coder', { classify: false })).toBe('respond');
    expect(chatVerdict(chat('hey @coder, look'), 'coder', { classify: false })).toBe('respond');
    expect(chatVerdict(chat('@coder note to self', { from: 'coder' }), 'coder', { classify: true })).toBe('ignore');
  });

  it('leaves other chats alone, or classifies broadcasts when asked to', () => {
    expect(chatVerdict(chat('hello all'), 'coder', { classify: false })).toBe('ignore');
    expect(chatVerdict(chat('hello all'), 'coder', { classify: true })).toBe('classify');
    expect(chatVerdict(chat('for bob only', { to: ['bob'] }), 'coder', { classify: true })).toBe('ignore');
  });
});

describe('mentions', () => {
  it('matches the whole id only', () => {
    expect(mentions('@coder.', 'coder')).toBe(true);
    expect(mentions('(@coder)', 'coder')).toBe(true);
    expect(mentions('@coder-2 please', 'coder')).toBe(false);
    expect(mentions('mail me@coder.io', 'coder')).toBe(false);
    expect(mentions('@coder.io', 'coder')).toBe(false);
    expect(mentions('ping @a.b', 'a.b')).toBe(true);
  });
});

describe('classificationSaysRespond', () => {
  it('needs respond: true with enough confidence, from JSON anywhere in the reply', () => {
    expect(classificationSaysRespond('{"respond": true, "confidence": 0.9}', 0.7)).toBe(true);
    expect(classificationSaysRespond('Sure: ```json\n{"respond": true, "confidence": 0.7}\n```', 0.7)).toBe(true);
    expect(classificationSaysRespond('{"respond": true, "confidence": 0.6}', 0.7)).toBe(false);
    expect(classificationSaysRespond('{"respond": false, "confidence": 1}', 0.7)).toBe(false);
    expect(classificationSaysRespond('yes!', 0.7)).toBe(false);
    expect(classificationSaysRespond('{respond: yes}', 0.7)).toBe(false);
  });
});

describe('ReplyRateLimiter', () => {
  it('allows max replies per sliding window, then says how long to wait', () => {
    const limiter = new ReplyRateLimiter(2, 60_000);
    limiter.record(0);
    expect(limiter.waitMs(1_000)).toBe(0);
    limiter.record(1_000);
    expect(limiter.waitMs(30_000)).toBe(30_000);
    expect(limiter.waitMs(60_000)).toBe(0);
  });
});
