import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CLOSE_CODES, type Envelope } from '../protocol';
import { spaceConfig, startTestGateway, tokenOf, type TestGateway } from '../gateway/testing';
import type { MEWParticipantOptions } from './mew-participant';
import { UnacknowledgedSendError } from './sdk-errors';
import { nextEvent, participantFactory, recordEvents, rejectionOf } from './testing';
import { createWebSocketTransport, type TransportFactory } from './transport';

const config = spaceConfig('once', {
  calc: [{ kind: 'mcp/response' }, { kind: 'chat' }],
  caller: [{ kind: 'mcp/request' }, { kind: 'chat' }],
});

/**
 * The real transport, plus `inject` (deliver a frame as if the gateway had sent it, e.g. a second time), a record
 * of every frame sent, and `dropSends` (sends vanish on the way, as under a dying connection).
 */
function instrumented() {
  let deliver: ((text: string) => void) | undefined;
  const state = { sent: [] as string[], dropSends: false };
  const transport: TransportFactory = (request, handlers) => {
    deliver = (text) => handlers.onMessage(text);
    const real = createWebSocketTransport(request, handlers);
    return {
      ...real,
      send: (data) => {
        state.sent.push(String(data));
        if (!state.dropSends) real.send(data);
      },
    };
  };
  return { transport, state, inject: (frame: unknown) => deliver!(JSON.stringify(frame)) };
}

// Each test, in both blocks, on a gateway of its own; the participants it connected are gone after it.
let gw: TestGateway;
const participants = participantFactory('once', () => gw.wsUrl(), tokenOf);
beforeEach(async () => {
  gw = await startTestGateway(config);
});
afterEach(async () => {
  participants.disconnectAll();
  await gw.close();
});

describe('MEWParticipant runs a request id once, and answers it again from what it stored', () => {
  /** calc, with an `add` tool that counts its runs (and may be held until `release`), over an instrumented transport. */
  async function calculator(options: Partial<MEWParticipantOptions> = {}) {
    const wire = instrumented();
    const calc = await participants.connect('calc', { transport: wire.transport, ...options });
    const runs: unknown[] = [];
    let hold: Promise<void> | undefined;
    let release = () => undefined as void;
    calc.tools.register({
      name: 'add',
      execute: async (args) => {
        runs.push(args);
        await hold;
        return Number(args.a) + Number(args.b);
      },
    });
    const requests = recordEvents(calc.client, 'mcp/request');
    return {
      calc,
      wire,
      runs,
      requests,
      holdNextRun: () => {
        hold = new Promise<void>((resolve) => (release = resolve));
        return () => release();
      },
      responsesSent: () => wire.state.sent.filter((frame) => (JSON.parse(frame) as { kind: string }).kind === 'mcp/response'),
    };
  }

  async function caller() {
    const participant = await participants.connect('caller', { autoDiscovery: false });
    return { participant, responses: recordEvents(participant.client, 'mcp/response') };
  }

  const addCall = { method: 'tools/call', params: { name: 'add', arguments: { a: 2, b: 3 } } };

  it('a request delivered twice runs once; the second delivery gets the identical response again, which the gateway dedupes', async () => {
    const { calc, wire, runs, requests, responsesSent } = await calculator();
    const { participant, responses } = await caller();
    expect(await participant.mcpRequest('calc', addCall)).toEqual({ content: [{ type: 'text', text: '5' }] });
    await expect.poll(() => responsesSent().length).toBe(1);
    const duplicates = recordEvents(calc.client, 'duplicate');

    wire.inject(requests[0]); // the same envelope once more
    await expect.poll(() => responsesSent().length).toBe(2);
    expect(runs).toHaveLength(1);
    expect(duplicates.map((e) => e.id)).toEqual([requests[0].id]);
    const [first, again] = responsesSent();
    expect(again).toBe(first);
    // Routed once: the caller hears of no second response (the gateway answered calc's repeat with the original).
    participant.chat.send('marker');
    await nextEvent(participant.client, 'chat', (e) => e.payload.text === 'marker');
    expect(responses).toHaveLength(1);
  });

  it('past the client’s id window, the participant still recognises the request and does not run it again', async () => {
    const { calc, wire, runs, requests, responsesSent } = await calculator({ recentEnvelopeIds: 1 });
    const { participant } = await caller();
    await participant.mcpRequest('calc', addCall);
    participant.chat.send('pushes the request out of the client’s window');
    await nextEvent(calc.client, 'chat');
    const seenAgain = nextEvent(calc.client, 'mcp/request');
    wire.inject(requests[0]);
    await seenAgain; // emitted again by the client this time
    await expect.poll(() => responsesSent().length).toBe(2);
    expect(runs).toHaveLength(1);
    expect(new Set(responsesSent()).size).toBe(1);
  });

  it('a request delivered again while it still runs does not start a second run; one response when it ends', async () => {
    const { calc, wire, runs, requests, holdNextRun, responsesSent } = await calculator({ recentEnvelopeIds: 1 });
    const release = holdNextRun();
    const { participant } = await caller();
    const result = participant.mcpRequest('calc', addCall);
    await expect.poll(() => runs.length).toBe(1);
    participant.chat.send('pushes the request out of the client’s window');
    await nextEvent(calc.client, 'chat');
    const seenAgain = recordEvents(calc.client, 'mcp/request');
    wire.inject(requests[0]);
    wire.inject({ ...requests[0], cursor: undefined }); // and once more, as a gateway without cursors would
    expect(seenAgain).toHaveLength(1); // the second was a duplicate for the client already
    release();
    expect(await result).toEqual({ content: [{ type: 'text', text: '5' }] });
    await expect.poll(() => responsesSent().length).toBe(1);
    expect(runs).toHaveLength(1);
  });

  it('across a reconnect, a request replayed to calc runs once and is answered with the same response', async () => {
    const { calc, wire, runs, requests, responsesSent } = await calculator();
    const { participant } = await caller();
    await participant.mcpRequest('calc', addCall);
    await expect.poll(() => responsesSent().length).toBe(1);
    const down = nextEvent(calc.client, 'status', (s) => s.status === 'disconnected');
    gw.gateway.spaces.get('once')!.participants.get('calc')!.links[0].connection.close(CLOSE_CODES.slow_consumer, 'dropped');
    await down;
    await nextEvent(calc.client, 'status', (s) => s.status === 'ready');
    wire.inject(requests[0]);
    await expect.poll(() => responsesSent().length).toBe(2);
    expect(runs).toHaveLength(1);
    expect(responsesSent()[1]).toBe(responsesSent()[0]);
  });

  it('a response lost with calc’s connection is sent again after the reconnect, and the caller gets it once', async () => {
    const { calc, wire, runs, responsesSent } = await calculator();
    const { participant, responses } = await caller();
    const release = (() => {
      wire.state.dropSends = true;
      return () => (wire.state.dropSends = false);
    })();
    const result = participant.mcpRequest('calc', addCall);
    await expect.poll(() => responsesSent().length).toBe(1); // written, and lost
    gw.gateway.spaces.get('once')!.participants.get('calc')!.links[0].connection.close(CLOSE_CODES.slow_consumer, 'dropped');
    await nextEvent(calc.client, 'status', (s) => s.status === 'disconnected');
    release();
    expect(await result).toEqual({ content: [{ type: 'text', text: '5' }] });
    expect(runs).toHaveLength(1);
    expect(responses).toHaveLength(1);
    expect(responsesSent()).toHaveLength(2);
    expect(responsesSent()[1]).toBe(responsesSent()[0]);
  });
});

describe('MEWParticipant hears of sends the client gave up on', () => {
  it('sendAndAwait and mcpRequest in doubt at disconnect() reject with UnacknowledgedSendError at once', async () => {
    const wire = instrumented();
    const caller = await participants.connect('caller', { autoDiscovery: false, transport: wire.transport });
    wire.state.dropSends = true;
    const { envelope, reply } = caller.sendAndAwait({ kind: 'chat', payload: { text: 'in doubt' } }, { replyKinds: [], timeoutMs: 60_000 });
    let request: Envelope<'mcp/request'> | undefined;
    const result = caller.mcpRequest('calc', { method: 'tools/list' }, 60_000, { onSent: (sent) => (request = sent as Envelope<'mcp/request'>) });
    caller.disconnect();
    const chatError = await rejectionOf(reply);
    expect(chatError).toBeInstanceOf(UnacknowledgedSendError);
    expect(chatError).toMatchObject({ envelopeId: envelope.id, reason: expect.stringMatching(/disconnect\(\)/) });
    const requestError = await rejectionOf(result);
    expect(requestError).toBeInstanceOf(UnacknowledgedSendError);
    expect(requestError).toMatchObject({ envelopeId: request!.id });
  });
});
