import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { joinAs, spaceConfig, startTestGateway, tokenOf, type TestClient, type TestGateway } from './testing';

const config = spaceConfig(
  'streams',
  {
    owner: [{ kind: 'stream/*' }, { kind: 'chat' }],
    writer: [{ kind: 'stream/*' }, { kind: 'chat' }],
    watcher: [{ kind: 'chat' }, { kind: 'stream/close' }],
  },
  { limits: { stream_orphan_grace_ms: 150 } },
);

describe('streams', () => {
  let gw: TestGateway;
  let owner: TestClient;
  let writer: TestClient;
  let watcher: TestClient;
  beforeEach(async () => {
    gw = await startTestGateway(config);
    owner = await joinAs(gw, tokenOf('owner'), 'space=streams');
    writer = await joinAs(gw, tokenOf('writer'), 'space=streams');
    watcher = await joinAs(gw, tokenOf('watcher'), 'space=streams');
  });
  afterEach(() => gw.close());

  async function open(payload: Record<string, unknown> = { direction: 'upload' }) {
    owner.send({ id: 'req-1', kind: 'stream/request', to: ['gateway'], payload });
    const opened = await owner.next((f) => f.kind === 'stream/open');
    expect(opened).toMatchObject({ from: 'system:gateway', correlation_id: ['req-1'], payload: { owner: 'owner' } });
    expect(opened.payload.stream_id).toMatch(/^[A-Za-z0-9_-]{22}$/);
    return opened;
  }

  it('answers stream/request with stream/open to everyone and routes the owner’s frames', async () => {
    const { payload } = await open();
    await watcher.next((f) => f.kind === 'stream/open' && f.payload.stream_id === payload.stream_id);
    owner.send(`#${payload.stream_id}#hello`);
    expect(await watcher.next((f) => 'stream' in f)).toEqual({ stream: `#${payload.stream_id}#hello` });
  });

  it('refuses frames from writers it did not authorise and frames for unknown streams', async () => {
    const { payload } = await open();
    writer.send(`#${payload.stream_id}#sneaky`);
    expect((await writer.kind('system/error')).payload).toMatchObject({ error: 'unauthorized_stream_write', stream_id: payload.stream_id });
    writer.send('#no-such-stream#data');
    expect((await writer.kind('system/error')).payload.error).toBe('unknown_stream');
    expect(watcher.received.some((f) => 'stream' in f)).toBe(false);
  });

  it('lets authorised writers write and sends frames only to the targets (and the owner)', async () => {
    const { payload } = await open({ direction: 'upload', authorized_writers: ['writer'], target: ['writer'] });
    writer.send(`#${payload.stream_id}#from writer`);
    expect(await owner.next((f) => 'stream' in f)).toEqual({ stream: `#${payload.stream_id}#from writer` });
    await writer.next((f) => 'stream' in f);
    expect(watcher.received.some((f) => 'stream' in f)).toBe(false);
  });

  it('refuses a target outside the space', async () => {
    owner.send({ kind: 'stream/request', payload: { direction: 'upload', target: ['ghost'] } });
    expect((await owner.kind('system/error')).payload.error).toBe('unknown_participant');
  });

  it('lets only the owner close, and refuses frames after the close', async () => {
    const { payload } = await open();
    watcher.send({ kind: 'stream/close', payload: { stream_id: payload.stream_id, reason: 'mine now' } });
    expect((await watcher.kind('system/error')).payload.error).toBe('unauthorized_stream_write');
    owner.send({ kind: 'stream/close', payload: { stream_id: payload.stream_id, reason: 'complete' } });
    await watcher.kind('stream/close');
    owner.send(`#${payload.stream_id}#late`);
    expect((await owner.kind('system/error')).payload.error).toBe('unknown_stream');
  });

  it('lists open streams in the welcome of late joiners', async () => {
    const { payload } = await open({ direction: 'download', description: 'reasoning' });
    watcher.close();
    await watcher.closed;
    const late = await joinAs(gw, tokenOf('watcher'), 'space=streams');
    expect(late.welcome?.payload.active_streams).toEqual([
      { stream_id: payload.stream_id, owner: 'owner', direction: 'download', authorized_writers: ['owner'], encoding: 'text' },
    ]);
  });

  it('closes a stream whose owner left and did not come back within the grace period', async () => {
    const { payload } = await open();
    owner.ws.terminate();
    const closed = await watcher.kind('stream/close');
    expect(closed).toMatchObject({ from: 'system:gateway', payload: { stream_id: payload.stream_id, reason: 'owner_left' } });
  });
});
