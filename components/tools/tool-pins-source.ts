'use client';

import { useCallback, useSyncExternalStore } from 'react';
import { spaceApi } from '@/components/session/space-api';
import { useSpaceSession } from '@/components/session/space-session';
import type { ToolDefinitions, ToolPin, ToolPinAccepted, ToolPinList } from '@/lib/protocol';
import type { SpaceStore } from '@/lib/store';

/** How often the space's pins are read again while something shows them and the tab is visible. */
export const TOOL_PINS_POLL_MS = 5_000;
/**
 * After the browser sees a `tools/list` answer, the pins are read again this much later: the server records the
 * answer's definitions once it is durable, which may be a moment after the browser got it.
 */
const AFTER_LISTING_MS = 500;

/** The space's pinned tool definitions as `GET /api/spaces/{space}/tools` last answered (or why it did not). */
export interface ToolPinsSnapshot {
  pins?: readonly ToolPin[];
  error?: string;
}

/**
 * The pins of one signed-in space, shared by everything that shows them (the Tools view, every proposal card): one
 * request per space, however many cards, every `TOOL_PINS_POLL_MS` while anything is subscribed and the tab is
 * visible, and soon after each `tools/list` answer the browser's model sees. A poll that brings the same listing
 * keeps the snapshot (so no card re-renders); definitions for a diff are fetched once per pair of hashes.
 */
export class ToolPinsSource {
  private snapshot: ToolPinsSnapshot = {};
  /** The last listing's JSON, to tell a changed answer from the same one. */
  private listing = '';
  private readonly listeners = new Set<() => void>();
  private pollTimer: ReturnType<typeof setTimeout> | undefined;
  private soonTimer: ReturnType<typeof setTimeout> | undefined;
  private inFlight: Promise<void> | undefined;
  /** A refresh asked for while one was in flight: run once more after it (its answer may predate the change). */
  private again = false;
  private unwatchStore: (() => void) | undefined;
  /** Names the current polling loop: a loop of an earlier start (stopped while it awaited a read) ends. */
  private generation = 0;
  private readonly definitionsByHashes = new Map<string, Promise<ToolDefinitions>>();

  constructor(
    private readonly space: string,
    private readonly token: string,
    private readonly store: SpaceStore,
  ) {}

  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    if (this.listeners.size === 1) this.start();
    return () => {
      this.listeners.delete(listener);
      if (this.listeners.size === 0) this.stop();
    };
  };

  readonly getSnapshot = (): ToolPinsSnapshot => this.snapshot;

  /** Reads the pins now (joining a read in flight, and reading once more after it). */
  refresh(): Promise<void> {
    if (this.inFlight) {
      this.again = true;
      return this.inFlight;
    }
    this.inFlight = this.read().finally(() => {
      this.inFlight = undefined;
      if (this.again) {
        this.again = false;
        void this.refresh();
      }
    });
    return this.inFlight;
  }

  /** Pins the tool's current definition (the server refuses anyone but an operator); the listing shows it at once. */
  async accept(participant: string, tool: string): Promise<ToolPin> {
    const path = `/tools/${encodeURIComponent(participant)}/${encodeURIComponent(tool)}/accept`;
    const { tool: accepted } = await spaceApi<ToolPinAccepted>(this.space, this.token, path, { method: 'POST' });
    const pins = this.snapshot.pins ?? [];
    this.publish(pins.map((pin) => (pin.participant === accepted.participant && pin.name === accepted.name ? accepted : pin)));
    void this.refresh();
    return accepted;
  }

  /** Both definitions of a tool as listed now, fetched once per pinned/current pair of hashes. */
  definitions(pin: ToolPin): Promise<ToolDefinitions> {
    const key = [pin.participant, pin.name, pin.pinned_hash, pin.hash].join('\n');
    let definitions = this.definitionsByHashes.get(key);
    if (!definitions) {
      const path = `/tools/${encodeURIComponent(pin.participant)}/${encodeURIComponent(pin.name)}/definitions`;
      definitions = spaceApi<ToolDefinitions>(this.space, this.token, path);
      definitions.catch(() => this.definitionsByHashes.delete(key)); // a failure is asked again next time
      this.definitionsByHashes.set(key, definitions);
    }
    return definitions;
  }

  private start(): void {
    const generation = ++this.generation;
    let version = this.store.getState().tools.version;
    this.unwatchStore = this.store.subscribe((state) => {
      if (state.tools.version === version) return;
      version = state.tools.version;
      clearTimeout(this.soonTimer);
      this.soonTimer = setTimeout(() => void this.refresh(), AFTER_LISTING_MS);
    });
    const poll = async () => {
      if (document.visibilityState === 'visible') await this.refresh();
      if (generation === this.generation) this.pollTimer = setTimeout(poll, TOOL_PINS_POLL_MS);
    };
    void poll();
  }

  private stop(): void {
    this.generation++;
    this.unwatchStore?.();
    clearTimeout(this.pollTimer);
    clearTimeout(this.soonTimer);
  }

  private async read(): Promise<void> {
    try {
      const { tools } = await spaceApi<ToolPinList>(this.space, this.token, '/tools');
      this.publish(tools);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (message === this.snapshot.error) return;
      this.snapshot = { ...this.snapshot, error: message };
      this.notify();
    }
  }

  private publish(pins: readonly ToolPin[]): void {
    const listing = JSON.stringify(pins);
    if (listing === this.listing && this.snapshot.error === undefined) return;
    this.listing = listing;
    this.snapshot = { pins };
    this.notify();
  }

  private notify(): void {
    for (const listener of this.listeners) listener();
  }
}

/** One source per signed-in space (its store), wherever in the page it is asked for: the queue and the inbox alike. */
const sources = new WeakMap<SpaceStore, ToolPinsSource>();

export function useToolPinsSource(): ToolPinsSource {
  const { space, token, store } = useSpaceSession();
  let source = sources.get(store);
  if (!source) {
    source = new ToolPinsSource(space, token, store);
    sources.set(store, source);
  }
  return source;
}

const NOTHING_YET: ToolPinsSnapshot = {};

/** The space's pins, kept current while the caller is mounted. */
export function useToolPins(): ToolPinsSnapshot {
  const source = useToolPinsSource();
  return useSyncExternalStore(source.subscribe, source.getSnapshot, () => NOTHING_YET);
}

/**
 * The pin of a tool whose definition changed since it was trusted, or undefined. Without a participant (a proposal
 * to anyone), any participant's changed tool of that name: the warning errs on the side of caution.
 */
export function useChangedPin(participant: string | undefined, tool: string | undefined): ToolPin | undefined {
  const source = useToolPinsSource();
  const select = useCallback(
    () =>
      tool === undefined
        ? undefined
        : source.getSnapshot().pins?.find((pin) => pin.changed && pin.name === tool && (participant === undefined || pin.participant === participant)),
    [source, participant, tool],
  );
  return useSyncExternalStore(source.subscribe, select, () => undefined);
}
