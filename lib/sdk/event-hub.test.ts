import { describe, expect, it, vi } from 'vitest';
import { EventHub } from './event-hub';

describe('EventHub', () => {
  it('calls listeners in order until unsubscribed, and a throwing listener does not stop the others', () => {
    const failures: unknown[] = [];
    const hub = new EventHub<{ tick: number }>((error) => failures.push(error));
    const seen: string[] = [];
    hub.on('tick', (n) => seen.push(`a${n}`));
    hub.on('tick', () => {
      throw new Error('boom');
    });
    const off = hub.on('tick', (n) => seen.push(`c${n}`));
    hub.emit('tick', 1);
    off();
    off(); // twice is harmless
    hub.emit('tick', 2);
    expect(seen).toEqual(['a1', 'c1', 'a2']);
    expect(failures).toHaveLength(2);
  });

  it('does not call a listener added during an emit until the next one', () => {
    const hub = new EventHub<{ tick: number }>();
    const late = vi.fn();
    const off = hub.on('tick', () => {
      off();
      hub.on('tick', late);
    });
    hub.emit('tick', 1);
    expect(late).not.toHaveBeenCalled();
    hub.emit('tick', 2);
    expect(late).toHaveBeenCalledExactlyOnceWith(2);
  });
});
