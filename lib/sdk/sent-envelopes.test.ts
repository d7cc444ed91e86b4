import { describe, expect, it } from 'vitest';
import type { AnyEnvelope } from '../protocol';
import { trackMcpRequest } from './mcp-request-tracker';
import type { SentEnvelope, Unacknowledged } from './mew-client';
import { SentEnvelopes } from './sent-envelopes';
import { GatewayRefusalError, ProposalRejectedError, UnacknowledgedSendError } from './sdk-errors';
import { rejectionOf } from './testing';

const envelope = (fields: Record<string, unknown>) => ({ protocol: 'mew/v0.4', ts: '2026-01-01T00:00:00Z', payload: {}, ...fields }) as AnyEnvelope;

/** A record store over a connection that is up (`open`), recording what was written and given up. */
function records(limit = 10) {
  const state = { open: true, written: [] as string[], lost: [] as Unacknowledged[] };
  const sent = new SentEnvelopes({
    limit,
    rateLimitRetries: 1,
    write: (text) => state.open && state.written.push(text) > 0,
    unacknowledged: (lost) => state.lost.push(lost),
  });
  const send = (id: string, fields: Record<string, unknown> = {}) => {
    const e = { id, kind: 'chat', payload: { text: id }, ...fields } as SentEnvelope;
    sent.send(e, JSON.stringify(e));
    return e;
  };
  return { sent, send, state };
}

describe('SentEnvelopes: one record per envelope I send', () => {
  it('takes only my own echo as acceptance: another participant reusing my id proves nothing', async () => {
    const { sent, send } = records();
    send('dup');
    const accepted = sent.wait('dup', { replyKinds: [], timeoutMs: 1000 });
    sent.observe(envelope({ id: 'dup', from: 'mallory', kind: 'chat', payload: { text: 'same id' } }), 'me');
    sent.observe(
      envelope({ id: 'err-1', from: 'system:gateway', to: ['me'], kind: 'system/error', correlation_id: ['dup'], payload: { error: 'capability_violation' } }),
      'me',
    );
    const error = await rejectionOf(accepted);
    expect(error).toBeInstanceOf(GatewayRefusalError);
    expect(error).toMatchObject({ code: 'capability_violation', envelopeId: 'err-1' });
    expect(sent.get('dup')).toBeUndefined();
  });

  it('lets acceptance and a reply be awaited apart on the same envelope, and forgets it once both settled', async () => {
    const { sent, send } = records();
    send('inv', { kind: 'space/invite', payload: { participant_id: 'guest' } });
    const accepted = sent.wait<'space/invite'>('inv', { replyKinds: [], timeoutMs: 1000 });
    const acked = sent.wait<'space/invite-ack'>('inv', { replyKinds: ['space/invite-ack'], timeoutMs: 1000 });
    sent.observe(envelope({ id: 'inv', from: 'me', kind: 'space/invite', payload: { participant_id: 'guest' } }), 'me');
    expect(sent.get('inv')).toMatchObject({ state: 'accepted' });
    sent.observe(
      envelope({
        id: 'ack',
        from: 'system:gateway',
        to: ['me'],
        kind: 'space/invite-ack',
        correlation_id: ['inv'],
        payload: { status: 'accepted', participant_id: 'guest' },
      }),
      'me',
    );
    expect((await accepted).id).toBe('inv');
    expect((await acked).id).toBe('ack');
    expect(sent.get('inv')).toBeUndefined();
  });

  it('keeps a send queued while disconnected, writes it after the ones in doubt, and retries a rate-limited one', () => {
    const { sent, send, state } = records();
    send('in-doubt');
    state.open = false;
    send('queued');
    expect(sent.queuedCount).toBe(1);
    const flushed: string[] = [];
    sent.flush((text) => flushed.push(JSON.parse(text).id));
    expect(flushed).toEqual(['in-doubt', 'queued']);
    expect(
      sent.observe(envelope({ id: 'e', from: 'system:gateway', kind: 'system/error', correlation_id: ['queued'], payload: { error: 'rate_limited' } }), 'me'),
    ).toBe(true);
    expect(sent.get('queued')).toMatchObject({ state: 'retrying', retries: 1 });
    expect(sent.awaitingAck((e) => e.id === 'queued')?.id).toBe('queued');
  });

  it('gives up the sends in doubt: their waiters fail with UnacknowledgedSendError and listeners hear of it once', async () => {
    const { sent, send, state } = records(2);
    send('a');
    const waiting = sent.wait('a', { replyKinds: [], timeoutMs: 1000 });
    send('b');
    send('c'); // beyond the limit: the oldest in doubt goes
    expect(state.lost).toEqual([{ ids: ['a'], reason: 'more than 2 sends were awaiting acknowledgement' }]);
    expect(await rejectionOf(waiting)).toBeInstanceOf(UnacknowledgedSendError);
    sent.giveUpInDoubt('gone');
    expect(state.lost.at(-1)).toEqual({ ids: ['b', 'c'], reason: 'gone' });
  });

  it('follows a proposal through its fulfilment (a link of its record), and fails it on a reject', async () => {
    const { sent, send } = records();
    send('p', { kind: 'mcp/proposal', to: ['calc'] });
    const result = trackMcpRequest(sent, 'p', { mode: 'proposal', targets: ['calc'], timeoutMs: 1000 });
    sent.observe(
      envelope({ id: 'f', from: 'human', to: ['calc'], kind: 'mcp/request', correlation_id: ['p'], payload: { jsonrpc: '2.0', id: 1, method: 'x' } }),
      'me',
    );
    sent.observe(
      envelope({ id: 'forged', from: 'mallory', kind: 'mcp/response', correlation_id: ['f'], payload: { jsonrpc: '2.0', id: 1, result: 'no' } }),
      'me',
    );
    sent.observe(envelope({ id: 'r', from: 'calc', kind: 'mcp/response', correlation_id: ['f'], payload: { jsonrpc: '2.0', id: 1, result: 'yes' } }), 'me');
    expect(await result).toBe('yes');

    send('q', { kind: 'mcp/proposal', to: ['calc'] });
    const rejected = trackMcpRequest(sent, 'q', { mode: 'proposal', targets: ['calc'], timeoutMs: 1000 });
    sent.observe(envelope({ id: 'x', from: 'human', kind: 'mcp/reject', correlation_id: ['q'], payload: { reason: 'unsafe' } }), 'me');
    expect(await rejectionOf(rejected)).toBeInstanceOf(ProposalRejectedError);
  });
});
