import type { Redis } from 'ioredis';
import { REPLAY_PAGE } from './cluster-options';

/** Every entry of a stream (id, fields), oldest first, one `XRANGE` page at a time. */
export async function* streamPages(redis: Redis, key: string, pageSize = REPLAY_PAGE): AsyncGenerator<[id: string, fields: string[]][]> {
  let start = '-';
  for (;;) {
    const page = await redis.xrange(key, start, '+', 'COUNT', pageSize);
    if (page.length > 0) yield page;
    if (page.length < pageSize) return;
    start = `(${page[page.length - 1][0]}`; // exclusive: after the last one read
  }
}
