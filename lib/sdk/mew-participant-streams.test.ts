import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { spaceConfig, startTestGateway, tokenOf, type TestGateway } from '../gateway/testing';
import type { MEWParticipant } from './mew-participant';
import { GatewayRefusalError } from './sdk-errors';
import type { StreamData } from '../protocol';
import { nextEvent, participantFactory, recordEvents, rejectionOf } from './testing';

const config = spaceConfig(
  'streams',
  {
    owner: [{ kind: 'stream/*' }, { kind: 'reasoning/*' }, { kind: 'chat' }],
    watcher: [{ kind: 'chat' }, { kind: 'reasoning/cancel' }],
  },
  { limits: { stream_orphan_grace_ms: 100 } },
);

describe('MEWParticipant streams', () => {
  let gw: TestGateway;
  let owner: MEWParticipant;
  let watcher: MEWParticipant;
  const participants = participantFactory('streams', () => gw.wsUrl(), tokenOf);

  beforeEach(async () => {
    gw = await startTestGateway(config);
    owner = await participants.connect('owner');
    watcher = await participants.connect('watcher');
  });
  afterEach(async () => {
    participants.disconnectAll();
    await gw.close();
  });

  it('requests a stream, writes text and binary frames others receive, and closes it', async () => {
    const seenOpen = nextEvent(watcher, 'streams', (list) => list.length === 1);
    const stream = await owner.streams.request({ direction: 'upload', encoding: 'text', description: 'log' });
    expect(stream.info).toMatchObject({ owner: 'owner', authorizedWriters: ['owner'], direction: 'upload', description: 'log' });
    expect((await seenOpen)[0].id).toBe(stream.info.id);

    const frames: StreamData[] = [];
    watcher.streams.onData(stream.info.id, (frame) => frames.push(frame));
    expect(stream.write('line 1')).toBe(true);
    expect(stream.write(new Uint8Array([0, 1, 255]))).toBe(true);
    await expect.poll(() => frames.length).toBe(2);
    expect(frames).toEqual([
      { streamId: stream.info.id, data: 'line 1' },
      { streamId: stream.info.id, data: new Uint8Array([0, 1, 255]) },
    ]);

    const seenClose = nextEvent(watcher, 'streams', (list) => list.length === 0);
    stream.close();
    await seenClose;
    expect(owner.streams.active()).toEqual([]);
  });

  it('lists streams opened before it joined, from its welcome', async () => {
    const stream = await owner.streams.request({ direction: 'download' });
    const late = await participants.connect('watcher');
    expect(late.streams.active()).toMatchObject([{ id: stream.info.id, owner: 'owner', direction: 'download' }]);
  });

  it('fails fast when the gateway refuses the stream request', async () => {
    const error = await rejectionOf(owner.streams.request({ direction: 'upload', target: ['nobody'] }));
    expect(error).toBeInstanceOf(GatewayRefusalError);
    expect(error.code).toBe('unknown_participant');
  });

  it('mirrors reasoning thoughts into a stream, including those thought before it opened, and closes it on conclusion', async () => {
    const frames = recordEvents(watcher.client, 'stream/data');
    const thoughts = recordEvents(watcher.client, 'reasoning/thought');
    const opened = nextEvent(watcher, 'streams', (list) => list.length === 1);
    const reasoning = owner.reasoning.start({ message: 'planning', mirrorToStream: true });
    reasoning.thought('step 1'); // before the stream/open arrives: buffered, then flushed into the stream
    const [info] = await opened;
    expect(info.description).toBe(`reasoning ${reasoning.id}`);
    reasoning.thought('step 2');
    await expect
      .poll(() => frames.filter((f) => f.streamId === info.id).map((f) => f.data))
      .toEqual([JSON.stringify({ message: 'step 1' }), JSON.stringify({ message: 'step 2' })]);
    expect(thoughts.map((t) => [t.context, t.payload.message])).toEqual([
      [reasoning.id, 'step 1'],
      [reasoning.id, 'step 2'],
    ]);
    const closed = nextEvent(watcher, 'streams', (list) => list.length === 0);
    reasoning.conclude('done');
    await closed;
  });
});
