import { describe, expect, it } from 'vitest';
import { applyEnvelope, applyEnvelopes, applyInputs, applyStreamData, isStreamFrame, type SpaceInput } from './apply-envelope';
import { readFrame } from './stream-frame-data';
import { activeStreams, reasoningThreads } from './space-selectors';
import { createSpaceState, type SpaceState } from './space-state';
import type { StoreEnvelope } from './store-envelope';
import { REF_CONCLUSION, REF_REASONING_START, REF_THOUGHT_RESPOND, REF_THOUGHT_TOOL } from '../../protocol/reference-shapes.fixture';
import { env, T0, welcome } from './testing';

const NOW = T0 + 1_000;

function run(envelopes: StoreEnvelope[], options = {}): SpaceState {
  return applyEnvelopes(createSpaceState({ me: 'human', ...options }, T0), envelopes, NOW);
}

const start = env({
  id: 'reason-start-1',
  from: 'agent-1',
  kind: 'reasoning/start',
  correlation_id: ['req-123'],
  payload: { message: 'Analyzing the request to modify the configuration file...' },
});
const thought = (id: string, message: string, at: number) =>
  env({ id, at, from: 'agent-1', kind: 'reasoning/thought', context: 'reason-start-1', payload: { message } });

describe('reasoning threads from envelopes (spec §3.5)', () => {
  it('opens a thread on reasoning/start, joins thoughts by context, and concludes', () => {
    const s = run([
      start,
      thought('thought-1', 'The configuration file appears to use YAML format.', 10),
      env({ id: 'unrelated', at: 15, from: 'agent-1', kind: 'reasoning/thought', context: 'other', payload: { message: 'elsewhere' } }),
      env({
        id: 'reason-end-1',
        at: 20,
        from: 'agent-1',
        kind: 'reasoning/conclusion',
        context: 'reason-start-1',
        payload: { message: 'Configuration update is safe to proceed.' },
      }),
    ]);
    const t = s.reasoning.byId.get('reason-start-1')!;
    expect(t).toMatchObject({
      from: 'agent-1',
      correlatedTo: ['req-123'],
      startedAt: T0,
      message: 'Analyzing the request to modify the configuration file...',
      state: 'concluded',
      conclusion: { id: 'reason-end-1', message: 'Configuration update is safe to proceed.', at: T0 + 20 },
    });
    expect(t.thoughts).toEqual([{ id: 'thought-1', at: T0 + 10, message: 'The configuration file appears to use YAML format.', source: 'envelope' }]);
    expect(reasoningThreads(s, { state: 'live' })).toEqual([]);
  });

  it('joins a thought whose context is a path ending in the start id', () => {
    const s = run([
      start,
      env({ id: 't', at: 5, from: 'agent-1', kind: 'reasoning/thought', context: 'workflow-123/reason-start-1', payload: { message: 'nested' } }),
    ]);
    expect(s.reasoning.byId.get('reason-start-1')!.thoughts.map((t) => t.message)).toEqual(['nested']);
  });

  it('cancels a live thread (spec §3.5.5), by whoever sent the cancel; a later conclusion does not revive it', () => {
    const s = run([
      start,
      thought('thought-1', 'step 1', 10),
      env({ id: 'reason-cancel-1', at: 20, from: 'human', kind: 'reasoning/cancel', context: 'reason-start-1', payload: { reason: 'superseded' } }),
      env({ id: 'late-end', at: 30, from: 'agent-1', kind: 'reasoning/conclusion', context: 'reason-start-1', payload: { message: 'too late' } }),
    ]);
    expect(s.reasoning.byId.get('reason-start-1')!).toMatchObject({
      state: 'cancelled',
      cancel: { id: 'reason-cancel-1', by: 'human', reason: 'superseded', at: T0 + 20 },
    });
    expect(s.reasoning.byId.get('reason-start-1')!.conclusion).toBeUndefined();
  });

  it('caps thoughts per thread and counts the dropped ones', () => {
    const envelopes = [start];
    for (let i = 0; i < 5; i++) envelopes.push(thought(`t-${i}`, `thought ${i}`, i + 1));
    const t = run(envelopes, { reasoningThoughtsCap: 3 }).reasoning.byId.get('reason-start-1')!;
    expect(t.thoughts.map((x) => x.id)).toEqual(['t-2', 't-3', 't-4']);
    expect(t.droppedThoughts).toBe(2);
  });

  it('reads the reference implementation’s shapes: input of a start, ReAct thoughts without message, an empty conclusion', () => {
    const shaped = [REF_REASONING_START, REF_THOUGHT_TOOL, REF_THOUGHT_RESPOND, REF_CONCLUSION] as unknown as StoreEnvelope[];
    const t = run(shaped).reasoning.byId.get(REF_REASONING_START.id)!;
    expect(t).toMatchObject({ from: 'mew', message: 'list the notes', state: 'concluded', conclusion: { id: REF_CONCLUSION.id, message: undefined } });
    expect(t.thoughts.map(({ message, action }) => ({ message, action }))).toEqual([
      {
        message: 'I should see which notes exist before answering.',
        action: { action: 'tool', input: { tool: 'files/list_directory', arguments: { path: '.' }, toolCallId: 'call_1' } },
      },
      { message: 'Two notes exist; I can answer.', action: { action: 'respond', input: 'There are two notes: a.md and b.md.' } },
    ]);
  });
});

describe('reasoning thoughts from stream frames (spec §3.10)', () => {
  const streamRequest = (extra: Partial<StoreEnvelope> = {}, description = 'reasoning trace') =>
    env({ id: 'stream-req-1', at: 1, from: 'agent-1', to: ['gateway'], kind: 'stream/request', payload: { direction: 'upload', description }, ...extra });
  const streamOpen = env({
    id: 'stream-open-1',
    at: 2,
    from: 'system:gateway',
    to: ['agent-1'],
    kind: 'stream/open',
    correlation_id: ['stream-req-1'],
    payload: { stream_id: 'stream-42', encoding: 'text', owner: 'agent-1', authorized_writers: ['agent-1'] },
  });

  it('links request (correlation_id → reasoning start) → open (correlation_id → request) → frames, and reads JSON thoughts and plain text', () => {
    let s = run([start, streamRequest({ correlation_id: ['reason-start-1'] }, 'bulk'), streamOpen]);
    expect(s.reasoning.byId.get('reason-start-1')!.streamId).toBe('stream-42');
    expect(s.streams.byId.get('stream-42')!).toMatchObject({
      reasoningId: 'reason-start-1',
      requestId: 'stream-req-1',
      openId: 'stream-open-1',
      owner: 'agent-1',
    });
    expect(activeStreams(s).map((x) => x.id)).toEqual(['stream-42']);

    s = applyStreamData(s, 'stream-42', '{"message":"Reading the YAML first."}', NOW + 1);
    s = applyStreamData(s, 'stream-42', new TextEncoder().encode('{"kind":"reasoning/thought","payload":{"message":"Then validating."}}'), NOW + 2);
    s = applyStreamData(s, 'stream-42', 'token by ', NOW + 3);
    s = applyStreamData(s, 'stream-42', 'token', NOW + 4);
    const t = s.reasoning.byId.get('reason-start-1')!;
    expect(t.thoughts.map((x) => [x.message, x.source])).toEqual([
      ['Reading the YAML first.', 'stream'],
      ['Then validating.', 'stream'],
    ]);
    expect(t.streamText).toBe('token by token');
    expect(s.streams.byId.get('stream-42')!.frames).toBe(4);
  });

  it('applies a batch of envelopes and frames (applyInputs) exactly as one by one, in arrival order', () => {
    const batch: SpaceInput[] = [
      start,
      streamRequest({ correlation_id: ['reason-start-1'] }, 'bulk'),
      streamOpen,
      { streamId: 'stream-42', data: 'token by ' },
      thought('thought-1', 'Reading the YAML first.', 3),
      { streamId: 'stream-42', data: '{"message":"Reading the YAML first."}' },
      { streamId: 'unknown', data: 'ignored' },
      { streamId: 'stream-42', data: 'token' },
    ];
    const initial = createSpaceState({ me: 'human' }, T0);
    const batched = applyInputs(initial, batch, NOW);
    let single = createSpaceState({ me: 'human' }, T0);
    for (const input of batch) {
      single = isStreamFrame(input) ? applyStreamData(single, input.streamId, input.data, NOW) : applyEnvelope(single, input, NOW);
    }
    const { thoughts, streamText } = batched.reasoning.byId.get('reason-start-1')!;
    expect(thoughts).toEqual(single.reasoning.byId.get('reason-start-1')!.thoughts);
    expect(thoughts.map((t) => [t.message, t.source, t.mirrored])).toEqual([['Reading the YAML first.', 'envelope', true]]);
    expect(streamText).toBe('token by token');
    expect(batched.streams.byId.get('stream-42')).toEqual(single.streams.byId.get('stream-42'));
    expect([batched.seq, batched.log.total]).toEqual([4, 4]);
    expect(initial.seq).toBe(0); // the state passed in is not the one written
    expect(applyInputs(batched, [start, { streamId: 'unknown', data: 'x' }], NOW)).toBe(batched);
  });

  it('links by the rule of convention: a "reasoning" stream requested by a participant with a live thread', () => {
    const s = run([start, streamRequest(), streamOpen]);
    expect(s.reasoning.byId.get('reason-start-1')!.streamId).toBe('stream-42');
  });

  it('links by a start id named in the description, and not at all without any hint', () => {
    expect(run([start, streamRequest({}, 'trace for reason-start-1'), streamOpen]).reasoning.byId.get('reason-start-1')!.streamId).toBe('stream-42');
    const unlinked = run([start, streamRequest({}, 'Large dataset export'), streamOpen]);
    expect(unlinked.reasoning.byId.get('reason-start-1')!.streamId).toBeUndefined();
    const after = applyStreamData(unlinked, 'stream-42', '{"message":"x"}', NOW);
    expect(after.reasoning).toBe(unlinked.reasoning);
    expect(after.streams.byId.get('stream-42')!.frames).toBe(1);
  });

  it('shows a thought mirrored into the stream once (SDK mirrors reasoning/thought payloads)', () => {
    let s = run([start, streamRequest({ correlation_id: ['reason-start-1'] }), streamOpen, thought('thought-1', 'Same thought', 10)]);
    s = applyStreamData(s, 'stream-42', '{"message":"Same thought"}', NOW);
    expect(s.reasoning.byId.get('reason-start-1')!.thoughts).toEqual([
      { id: 'thought-1', at: T0 + 10, message: 'Same thought', source: 'envelope', mirrored: true },
    ]);
  });

  it('ignores frames of unknown streams, and closes streams by correlation to their open (spec §3.10.4)', () => {
    let s = run([start, streamRequest({ correlation_id: ['reason-start-1'] }), streamOpen]);
    expect(applyStreamData(s, 'nope', 'x', NOW)).toBe(s);
    s = applyEnvelope(
      s,
      env({
        id: 'stream-close-1',
        at: 50,
        from: 'system:gateway',
        to: ['agent-1'],
        kind: 'stream/close',
        correlation_id: ['stream-open-1'],
        payload: { reason: 'complete' },
      }),
      NOW,
    );
    expect(s.streams.byId.get('stream-42')!.closed).toEqual({ id: 'stream-close-1', by: 'system:gateway', at: T0 + 50, reason: 'complete' });
    expect(activeStreams(s)).toEqual([]);
  });

  it('learns open streams from the welcome and closes those missing from a later one', () => {
    const active = { stream_id: 's-9', owner: 'agent-2', direction: 'upload', authorized_writers: ['agent-2'], description: 'reasoning reason-start-1' };
    let s = run([start, welcome('human', ['agent-1', 'agent-2'], 0, { active_streams: [active] })]);
    expect(s.streams.byId.get('s-9')!).toMatchObject({ owner: 'agent-2', direction: 'upload', reasoningId: 'reason-start-1' });
    expect(s.reasoning.byId.get('reason-start-1')!.streamId).toBe('s-9');
    s = applyEnvelope(s, welcome('human', ['agent-1'], 10_000), NOW);
    expect(s.streams.byId.get('s-9')!.closed?.reason).toBe('ended_while_disconnected');
  });

  it('reads jsonl frames line by line', () => {
    expect(readFrame('{"message":"a"}\n{"message":"b"}\nnot json\n')).toEqual({ thoughts: ['a', 'b'], text: 'not json\n' });
    expect(readFrame('{"kind":"reasoning/conclusion","payload":{"message":"done"}}')).toEqual({ thoughts: [], text: '' });
  });
});
