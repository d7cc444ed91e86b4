import { describe, expect, it } from 'vitest';
import type { AnyEnvelope } from '../protocol';
import { ReplyWaiter } from './reply-waiter';
import { GatewayRefusalError } from './sdk-errors';
import { rejectionOf } from './testing';

const envelope = (fields: Record<string, unknown>) => ({ protocol: 'mew/v0.4', ts: '2026-01-01T00:00:00Z', payload: {}, ...fields }) as AnyEnvelope;

describe('ReplyWaiter', () => {
  it('takes only my own echo as acceptance: another participant reusing my id proves nothing', async () => {
    const waiter = new ReplyWaiter();
    const accepted = waiter.wait('dup', { replyKinds: [], timeoutMs: 1000 });
    waiter.observe(envelope({ id: 'dup', from: 'mallory', kind: 'chat', payload: { text: 'same id' } }), 'me');
    waiter.observe(
      envelope({ id: 'err-1', from: 'system:gateway', to: ['me'], kind: 'system/error', correlation_id: ['dup'], payload: { error: 'capability_violation' } }),
      'me',
    );
    const error = await rejectionOf(accepted);
    expect(error).toBeInstanceOf(GatewayRefusalError);
    expect(error).toMatchObject({ code: 'capability_violation', envelopeId: 'err-1' });
  });

  it('lets acceptance and a reply be awaited apart on the same envelope', async () => {
    const waiter = new ReplyWaiter();
    const accepted = waiter.wait<'space/invite'>('inv', { replyKinds: [], timeoutMs: 1000 });
    const acked = waiter.wait<'space/invite-ack'>('inv', { replyKinds: ['space/invite-ack'], timeoutMs: 1000 });
    waiter.observe(envelope({ id: 'inv', from: 'me', kind: 'space/invite', payload: { participant_id: 'guest' } }), 'me');
    waiter.observe(
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
  });
});
