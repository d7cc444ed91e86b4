import { afterEach, describe, expect, it } from 'vitest';
import { tokenOf } from '../gateway/testing';
import { startNotifyFixture, type NotifyFixture } from './notify-fixture';
import { decryptPush } from './testing';

describe('notifications of questions (space__ask_human)', () => {
  let fx: NotifyFixture;
  afterEach(() => fx?.close());

  /** The agent asks (a chat marked question: true, as the MCP server's space__ask_human sends it). */
  async function ask(text: string, id = `question-${Date.now()}`) {
    fx.agent.send({ id, kind: 'chat', payload: { text, question: true } });
    await fx.lead.next((f) => f.id === id);
    return id;
  }

  it('pushes the question’s text without actions to whoever may answer, and replaces it with the answer', async () => {
    fx = await startNotifyFixture();
    const lead = await fx.subscribe('lead');
    const viewer = await fx.subscribe('viewer');
    const id = await ask('Which branch should I deploy? key sk-live-1234567890abcdefghijklmn');

    const asked = decryptPush(await fx.receiver.next('/push/lead'), lead);
    expect(asked).toEqual({
      title: 'agent asks',
      body: expect.stringMatching(/^notify · Which branch should I deploy\?/),
      url: `/spaces/notify#question=${id}`,
      tag: id,
    });
    expect(asked.body).not.toContain('sk-live-1234567890abcdefghijklmn');
    // The viewer may chat, so it may answer: its device hears of it too.
    expect(decryptPush(await fx.receiver.next('/push/viewer'), viewer)).toMatchObject({ title: 'agent asks', tag: id });

    fx.lead.send({ kind: 'chat', correlation_id: [id], payload: { text: 'main' } });
    expect(decryptPush(await fx.receiver.next('/push/lead'), lead)).toMatchObject({ title: 'Question from agent answered by lead', tag: id });
    expect(decryptPush(await fx.receiver.next('/push/viewer'), viewer)).toMatchObject({ title: 'Question from agent answered by lead', tag: id });
  });

  it('tells only those it was asked of, replaces it on withdrawal, and ignores the asker’s own follow-ups', async () => {
    fx = await startNotifyFixture();
    await fx.subscribe('lead');
    const viewer = await fx.subscribe('viewer');
    await fx.subscribe('agent');
    // lead asks viewer alone (lead may cancel: its capabilities are `*`).
    const id = `q-${Date.now()}`;
    fx.lead.send({ id, kind: 'chat', to: ['viewer'], payload: { text: 'Only you: may I?', question: true } });
    expect(decryptPush(await fx.receiver.next('/push/viewer'), viewer)).toMatchObject({ title: 'lead asks', body: 'notify · Only you: may I?' });
    fx.lead.send({ kind: 'chat', to: ['viewer'], correlation_id: [id], payload: { text: 'still there?' } });
    fx.lead.send({ kind: 'chat/cancel', to: ['viewer'], correlation_id: [id], payload: { reason: 'timeout' } });
    expect(decryptPush(await fx.receiver.next('/push/viewer'), viewer)).toMatchObject({ title: 'Question from lead withdrawn by lead', tag: id });
    await fx.idle();
    // Neither its asker nor anyone it was not asked of heard of it.
    expect(fx.receiver.received.filter((r) => r.path !== '/push/viewer')).toEqual([]);
  });

  it('posts question.asked to webhooks, as JSON and for Slack', async () => {
    fx = await startNotifyFixture();
    for (const [path, format] of [
      ['/hook', 'json'],
      ['/slack', 'slack'],
    ] as const) {
      const res = await fx.api('/api/spaces/notify/webhooks', { method: 'POST', token: tokenOf('lead'), body: { url: fx.receiver.url(path), format } });
      expect(res.status).toBe(201);
    }
    const id = await ask('Ship it?');
    const json = JSON.parse((await fx.receiver.next('/hook')).body.toString());
    expect(json).toEqual({
      event: 'question.asked',
      space: 'notify',
      question: { id, from: 'agent', to: [], text: 'Ship it?' },
      at: expect.any(String),
      url: `${fx.gw.httpUrl('/spaces/notify')}#question=${id}`,
    });
    const slack = JSON.parse((await fx.receiver.next('/slack')).body.toString());
    expect(slack.text).toBe('agent asks a question in notify: Ship it?');
    // The answer is not posted.
    fx.lead.send({ kind: 'chat', correlation_id: [id], payload: { text: 'yes' } });
    await fx.idle();
    expect(fx.receiver.received.filter((r) => r.path === '/hook')).toHaveLength(1);
  });
});
