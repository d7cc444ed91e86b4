/** A chat as the strategy needs it. */
export interface IncomingChat {
  id: string;
  from: string;
  /** Addressees; absent or empty means broadcast. */
  to?: readonly string[];
  text: string;
}

/** Answer it, ask the model whether to (broadcasts, when classification is on), or let it be. */
export type ChatVerdict = 'respond' | 'classify' | 'ignore';

/**
 * Whether a chat is for me: addressed to me (`to` names me) or mentioning `@me`. Never my own. A broadcast that
 * does neither goes to the model's classification when `classify` is on; a chat addressed only to others is
 * theirs.
 *
 * @example
 * chatVerdict({ id: '1', from: 'alice', text: '@coder fix the test' }, 'coder', { classify: false }); // 'respond'
 */
export function chatVerdict(chat: IncomingChat, me: string, options: { classify: boolean }): ChatVerdict {
  if (chat.from === me) return 'ignore';
  if (chat.to?.includes(me) || mentions(chat.text, me)) return 'respond';
  return options.classify && !chat.to?.length ? 'classify' : 'ignore';
}

/** `@me` as a whole id: `@coder` but not `@coder-2` or `email@coder.io`. */
export function mentions(text: string, me: string): boolean {
  const escaped = me.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(?:^|[^\\w@.-])@${escaped}(?![\\w-]|\\.\\w)`).test(text);
}

/**
 * The model's classification reply (`{"respond": bool, "confidence": 0..1}`, possibly inside prose or a code
 * fence) read as a decision; anything unreadable means no.
 */
export function classificationSaysRespond(reply: string, threshold: number): boolean {
  const json = reply.match(/\{[\s\S]*\}/)?.[0];
  if (!json) return false;
  try {
    const { respond, confidence } = JSON.parse(json) as { respond?: unknown; confidence?: unknown };
    return respond === true && typeof confidence === 'number' && confidence >= threshold;
  } catch {
    return false;
  }
}

/**
 * At most `max` replies per sliding window, so a chatty space (or two agents answering each other) cannot make the
 * agent burn tokens without pause.
 *
 * @example
 * const limiter = new ReplyRateLimiter(10, 60_000);
 * if (limiter.waitMs(Date.now()) === 0) limiter.record(Date.now());
 */
export class ReplyRateLimiter {
  private replies: number[] = [];

  constructor(
    private readonly max: number,
    private readonly windowMs: number,
  ) {}

  /** 0 when a reply may go now, else how long until one may. */
  waitMs(now: number): number {
    this.replies = this.replies.filter((at) => now - at < this.windowMs);
    return this.replies.length < this.max ? 0 : this.replies[0] + this.windowMs - now;
  }

  record(now: number): void {
    this.replies.push(now);
  }
}
