/**
 * Helpers for the SDK's co-located tests. Free of Node imports like the rest of `lib/sdk` (the tests themselves
 * bring the gateway); nothing in the product imports this file.
 */
import type { Unsubscribe } from './event-hub';
import type { JsonSchema } from './json-schema-validator';
import { type ClientEvents, MEWClient, type MEWClientOptions } from './mew-client';
import { MEWParticipant, type MEWParticipantOptions, type ParticipantEvents } from './mew-participant';
import { createWebSocketTransport, type TransportFactory } from './transport';

/** What the implementations need; the overloads carry the precise types. */
interface EventSource {
  on(event: string, listener: (value: unknown) => void): Unsubscribe;
}

/** Resolves with the next `event` whose value matches `predicate`; rejects after `timeoutMs`. */
export function nextEvent<E extends keyof ClientEvents>(
  source: MEWClient,
  event: E,
  predicate?: (value: ClientEvents[E]) => boolean,
  timeoutMs?: number,
): Promise<ClientEvents[E]>;
export function nextEvent<E extends keyof ParticipantEvents>(
  source: MEWParticipant,
  event: E,
  predicate?: (value: ParticipantEvents[E]) => boolean,
  timeoutMs?: number,
): Promise<ParticipantEvents[E]>;
export function nextEvent(source: unknown, event: string, predicate: (value: unknown) => boolean = () => true, timeoutMs = 3000): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      off();
      reject(new Error(`no matching "${String(event)}" event within ${timeoutMs} ms`));
    }, timeoutMs);
    const off = (source as EventSource).on(event, (value) => {
      if (!predicate(value)) return;
      clearTimeout(timer);
      off();
      resolve(value);
    });
  });
}

/** Every value of `event` from now on, in order. */
export function recordEvents<E extends keyof ClientEvents>(source: MEWClient, event: E): ClientEvents[E][];
export function recordEvents<E extends keyof ParticipantEvents>(source: MEWParticipant, event: E): ParticipantEvents[E][];
export function recordEvents(source: unknown, event: string): unknown[] {
  const values: unknown[] = [];
  (source as EventSource).on(event, (value) => values.push(value));
  return values;
}

/** The statuses a client goes through from now on. */
export function recordStatuses(client: MEWClient): ClientEvents['status']['status'][] {
  const statuses: ClientEvents['status']['status'][] = [];
  client.on('status', (change) => statuses.push(change.status));
  return statuses;
}

/**
 * A tool schema using the keywords a hand-written validator tends to skip (`pattern` behind a `$ref`, `oneOf` of
 * consts, `minItems`, `anyOf` in `items`, `const`), and a value that satisfies it.
 */
export const RELEASE_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['version', 'channel', 'targets'],
  $defs: { semver: { type: 'string', pattern: '^\\d+\\.\\d+\\.\\d+$' } },
  properties: {
    version: { $ref: '#/$defs/semver' },
    channel: { oneOf: [{ const: 'stable' }, { const: 'beta' }] },
    targets: { type: 'array', minItems: 1, items: { anyOf: [{ type: 'string', pattern: '^[a-z]+$' }, { type: 'integer' }] } },
    confirm: { const: true },
  },
};
export const VALID_RELEASE = { version: '1.2.3', channel: 'stable', targets: ['linux'], confirm: true };

/**
 * The real transport plus `inject`, which delivers a frame as if the gateway had sent it: what a gateway that failed
 * to enforce something would let through.
 */
export function leakyTransport(): { transport: TransportFactory; inject: (text: string) => void } {
  let deliver: ((text: string) => void) | undefined;
  return {
    transport: (request, handlers) => {
      deliver = (text) => handlers.onMessage(text);
      return createWebSocketTransport(request, handlers);
    },
    inject: (text) => {
      if (!deliver) throw new Error('inject() before the transport opened');
      deliver(text);
    },
  };
}

/** Reconnect delays short enough for tests. */
export const TEST_BACKOFF = { minDelayMs: 20, maxDelayMs: 100 };

/**
 * What a test started, undone after it in reverse order (`push` a cleanup); `client` makes a MEWClient with the test
 * backoff that is disconnected then.
 *
 * @example
 * const cleanups = testCleanups();
 * afterEach(() => cleanups.run());
 * const alice = cleanups.client({ gateway: gw.url, space: 'room', token });
 */
export function testCleanups() {
  const cleanups: (() => unknown)[] = [];
  function push(cleanup: () => unknown): void {
    cleanups.push(cleanup);
  }
  return {
    push,
    client(options: MEWClientOptions): MEWClient {
      const client = new MEWClient({ backoff: TEST_BACKOFF, ...options });
      push(() => client.disconnect());
      return client;
    },
    async run(): Promise<void> {
      for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
    },
  };
}

/**
 * Makes participants of one space on a test gateway and disconnects them all afterwards.
 *
 * @example
 * const participants = participantFactory('room', () => gw.wsUrl(), tokenOf);
 * const alice = await participants.connect('alice');
 * afterEach(() => participants.disconnectAll());
 */
export function participantFactory(space: string, gatewayUrl: () => string, tokenOf: (id: string) => string) {
  const created: MEWParticipant[] = [];
  const create = (id: string, options: Partial<MEWParticipantOptions> = {}): MEWParticipant => {
    const participant = new MEWParticipant({ gateway: gatewayUrl(), space, token: tokenOf(id), backoff: TEST_BACKOFF, ...options });
    created.push(participant);
    return participant;
  };
  return {
    create,
    /** Creates and connects; resolves once welcomed. */
    async connect(id: string, options: Partial<MEWParticipantOptions> = {}): Promise<MEWParticipant> {
      const participant = create(id, options);
      await participant.connect();
      return participant;
    },
    disconnectAll(): void {
      for (const participant of created.splice(0)) participant.disconnect();
    },
  };
}

/** The error a promise rejects with; throws (failing the test) if it resolves instead. */
export async function rejectionOf(promise: Promise<unknown>): Promise<Error & { code?: unknown }> {
  try {
    await promise;
  } catch (error) {
    return error as Error & { code?: unknown };
  }
  throw new Error('expected the promise to reject, but it resolved');
}
