import { afterEach, describe, expect, it, vi } from 'vitest';
import { MEWClient, type StatusChange } from './mew-client';
import { DEFAULT_BACKOFF, reconnectDelay } from './reconnect-backoff';
import { RECONNECT_HIDDEN_MAX_DELAY_MS, RECONNECT_MAX_DELAY_MS, RECONNECT_MIN_DELAY_MS } from './sdk-defaults';
import type { TransportFactory } from './transport';

const noJitter = () => 0;
const fullJitter = () => 1;

describe('reconnectDelay', () => {
  it('starts at the minimum and grows by the exponent', () => {
    expect(reconnectDelay(0, { hidden: false, random: noJitter })).toBe(RECONNECT_MIN_DELAY_MS);
    expect(reconnectDelay(1, { hidden: false, random: noJitter })).toBe(RECONNECT_MIN_DELAY_MS * DEFAULT_BACKOFF.exponent);
    expect(reconnectDelay(3, { hidden: false, random: noJitter })).toBe(Math.round(RECONNECT_MIN_DELAY_MS * DEFAULT_BACKOFF.exponent ** 3));
  });

  it('jitters each delay down by up to the jitter ratio', () => {
    expect(reconnectDelay(0, { hidden: false, random: fullJitter })).toBe(RECONNECT_MIN_DELAY_MS * (1 - DEFAULT_BACKOFF.jitterRatio));
    const spread = new Set(Array.from({ length: 50 }, () => reconnectDelay(4, { hidden: false })));
    expect(spread.size).toBeGreaterThan(10);
  });

  it('caps the delay, and never stops growing toward the cap however many attempts fail', () => {
    expect(reconnectDelay(50, { hidden: false, random: noJitter })).toBe(RECONNECT_MAX_DELAY_MS);
    expect(reconnectDelay(10_000, { hidden: false, random: noJitter })).toBe(RECONNECT_MAX_DELAY_MS);
  });

  it('waits longer, up to a higher cap, while the tab is hidden', () => {
    expect(reconnectDelay(0, { hidden: true, random: noJitter })).toBe(RECONNECT_MIN_DELAY_MS * DEFAULT_BACKOFF.hiddenDelayFactor);
    expect(reconnectDelay(50, { hidden: true, random: noJitter })).toBe(RECONNECT_HIDDEN_MAX_DELAY_MS);
  });
});

describe('MEWClient reconnect schedule', () => {
  const realDocument = Object.getOwnPropertyDescriptor(globalThis, 'document');
  afterEach(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
    if (realDocument) Object.defineProperty(globalThis, 'document', realDocument);
    else delete (globalThis as { document?: unknown }).document;
  });

  /** A gateway that is never there: every attempt fails right away. */
  function unreachable(): { factory: TransportFactory; attempts: () => number } {
    let attempts = 0;
    const factory: TransportFactory = (_request, handlers) => {
      attempts++;
      queueMicrotask(() => handlers.onClose(1006, 'connection refused'));
      return { isOpen: () => false, send: () => undefined, close: () => undefined };
    };
    return { factory, attempts: () => attempts };
  }

  it('keeps retrying forever with growing delays (not five tries then silence)', async () => {
    vi.useFakeTimers();
    vi.spyOn(Math, 'random').mockReturnValue(0);
    const { factory, attempts } = unreachable();
    const client = new MEWClient({ gateway: 'ws://gateway.invalid/ws', space: 's', token: 't', transport: factory });
    const waits: number[] = [];
    client.on('status', (change: StatusChange) => change.retryInMs !== undefined && waits.push(change.retryInMs));
    client.connect().catch(() => undefined);
    await vi.advanceTimersByTimeAsync(60 * 60_000); // an hour without a gateway
    expect(attempts()).toBeGreaterThan(100);
    expect(waits.slice(0, 4)).toEqual([500, 750, 1125, 1688]);
    expect(waits.every((w, i) => i === 0 || w >= waits[i - 1])).toBe(true);
    expect(waits.at(-1)).toBe(RECONNECT_MAX_DELAY_MS);
    expect(client.status).toBe('disconnected');
    client.disconnect();
  });

  it('backs off more in a hidden tab and retries at once when the tab becomes visible', async () => {
    vi.useFakeTimers();
    vi.spyOn(Math, 'random').mockReturnValue(0);
    const page = new EventTarget() as EventTarget & { visibilityState: string };
    page.visibilityState = 'hidden';
    Object.defineProperty(globalThis, 'document', { value: page, configurable: true });
    const { factory, attempts } = unreachable();
    const client = new MEWClient({ gateway: 'ws://gateway.invalid/ws', space: 's', token: 't', transport: factory });
    const waits: number[] = [];
    client.on('status', (change: StatusChange) => change.retryInMs !== undefined && waits.push(change.retryInMs));
    client.connect().catch(() => undefined);
    await vi.advanceTimersByTimeAsync(0);
    expect(waits).toEqual([RECONNECT_MIN_DELAY_MS * DEFAULT_BACKOFF.hiddenDelayFactor]);

    const before = attempts();
    page.visibilityState = 'visible';
    page.dispatchEvent(new Event('visibilitychange'));
    expect(attempts()).toBe(before + 1); // no waiting out the hidden-tab delay
    await vi.advanceTimersByTimeAsync(0);
    expect(waits.at(-1)).toBe(RECONNECT_MIN_DELAY_MS * DEFAULT_BACKOFF.exponent); // the second attempt, on the visible schedule
    client.disconnect();
  });
});
