/** Removes the listener it was returned for; calling it twice is harmless. */
export type Unsubscribe = () => void;

/**
 * Typed listener sets keyed by event name (tldraw's pattern: `Set`s, and every `on` returns its unsubscribe).
 * A listener that throws does not stop the others; its error goes to `onListenerError`.
 *
 * @example
 * const hub = new EventHub<{ tick: number }>();
 * const off = hub.on('tick', (n) => console.log(n));
 * hub.emit('tick', 1);
 * off();
 */
export class EventHub<Events extends object> {
  private readonly listeners = new Map<keyof Events, Set<(value: never) => void>>();

  constructor(
    private readonly onListenerError: (error: unknown, event: keyof Events) => void = (error) => console.error('[mew-sdk] listener failed:', error),
  ) {}

  on<E extends keyof Events>(event: E, listener: (value: Events[E]) => void): Unsubscribe {
    let set = this.listeners.get(event);
    if (!set) this.listeners.set(event, (set = new Set()));
    const entry = listener as (value: never) => void;
    set.add(entry);
    return () => {
      set.delete(entry);
    };
  }

  emit<E extends keyof Events>(event: E, value: Events[E]): void {
    const set = this.listeners.get(event);
    if (!set) return;
    // A copy, so listeners that unsubscribe (or subscribe) while being called do not disturb this round.
    for (const listener of [...set]) {
      try {
        (listener as (value: Events[E]) => void)(value);
      } catch (error) {
        this.onListenerError(error, event);
      }
    }
  }
}
