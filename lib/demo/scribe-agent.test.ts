import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AnyEnvelope } from '../protocol';
import type { MEWParticipant } from '../sdk/mew-participant';
import type { Proposal } from '../sdk/model/proposals-slice';
import type { DemoAgent } from './demo-agent';
import { SCRIBE_MAX_TOKENS } from './demo-defaults';
import { startScribeAgent } from './scribe-agent';
import { TEST_PACE_MS, collect, control, startDemoTestSpace, type DemoTestSpace } from './testing';

const today = () => new Date().toISOString().slice(0, 10);

describe('scribe agent', () => {
  let space: DemoTestSpace;
  let human: MEWParticipant;
  let fromScribe: AnyEnvelope[];

  beforeEach(async () => {
    space = await startDemoTestSpace();
    await space.startFiles();
    human = await space.connect('human');
    fromScribe = collect(human, (e) => e.from === 'scribe');
  });
  afterEach(() => space.close());

  const startScribe = async () => space.track(await startScribeAgent({ ...space.agentOptions('scribe'), proposalTimeoutMs: 10_000 }));
  const ofKind = (kind: string) => fromScribe.filter((e) => e.kind === kind);
  /**
   * A status report the scribe may send even when paused, seen back at both ends: the gateway answers a connection in
   * order, so every refusal of what the scribe sent before, and everything the human was to see, has arrived.
   */
  const roundTrip = async (scribe: DemoAgent) => {
    const sent = scribe.telemetry.report();
    await scribe.awaitReply(sent.id, { replyKinds: [], timeoutMs: 5000 });
    await expect.poll(() => fromScribe.some((e) => e.id === sent.id)).toBe(true);
  };
  const sandboxFile = (path: string) => join(space.sandbox, path);

  /** Decides each scribe proposal as it arrives: approve (fulfil), reject with a reason, or leave it pending. */
  function decide(decision: (proposal: Proposal, index: number) => 'approve' | 'leave' | { reject: string }) {
    let index = 0;
    human.on('proposal', (proposal) => {
      if (proposal.state !== 'pending' || proposal.proposer !== 'scribe') return;
      const choice = decision(proposal, index++);
      if (choice === 'approve') void human.proposals.fulfil(proposal.id).outcome.catch(() => undefined);
      else if (choice !== 'leave') human.proposals.reject(proposal.id, choice.reject);
    });
  }

  it('reasons, proposes write_file, and the note exists once a human fulfils the proposal', async () => {
    decide(() => 'approve');
    const scribe = await startScribe();
    const path = `notes/${today()}-standup.md`;
    await expect.poll(() => existsSync(sandboxFile(path))).toBe(true);
    expect(readFileSync(sandboxFile(path), 'utf8')).toContain('# Daily stand-up');

    const [proposal] = ofKind('mcp/proposal');
    expect(proposal).toMatchObject({ to: ['files'], payload: { method: 'tools/call', params: { name: 'write_file', arguments: { path } } } });
    expect(scribe.canSend('mcp/request', proposal.payload)).toBe(false);
    // Least privilege: it may propose the two file tools it needs and nothing else.
    expect(scribe.canSend('mcp/proposal', { method: 'tools/call', params: { name: 'move_file' } })).toBe(true);
    expect(scribe.canSend('mcp/proposal', { method: 'tools/call', params: { name: 'read_text_file' } })).toBe(false);

    // Step two (action items) correlates to step one's reasoning; thoughts and the conclusion carry its context.
    await expect.poll(() => ofKind('reasoning/start').length).toBeGreaterThanOrEqual(2);
    const [first, second] = ofKind('reasoning/start');
    expect(second.correlation_id).toEqual([first.id]);
    expect(ofKind('reasoning/thought').filter((e) => e.context === first.id)).toHaveLength(3);
    await expect
      .poll(() => ofKind('reasoning/conclusion').find((e) => e.context === first.id)?.payload)
      .toMatchObject({
        message: expect.stringMatching(/^Wrote notes\/.*-standup\.md \(\d+ bytes\)\.$/),
      });
    // Thoughts are mirrored into a stream the scribe asked for.
    expect(fromScribe.some((e) => e.kind === 'stream/request' && e.correlation_id?.[0] === first.id)).toBe(true);

    await expect.poll(() => existsSync(sandboxFile(path)) && readFileSync(sandboxFile(path), 'utf8').includes('## Action items')).toBe(true);
    const status = ofKind('participant/status').at(-1)!.payload as Record<string, unknown>;
    expect(status).toMatchObject({
      max_tokens: SCRIBE_MAX_TOKENS,
      tokens: expect.any(Number),
      messages_in_context: expect.any(Number),
      latency_ms: expect.any(Number),
    });
    expect(status.tokens).toBeGreaterThan(100);
  });

  it('explains a rejection in chat, correlated to the reject, and moves on to something else', async () => {
    let rejectId: string | undefined;
    human.client.on('mcp/reject', (reject) => (rejectId = reject.id));
    decide((_, index) => (index === 0 ? { reject: 'disagree' } : 'leave'));
    await startScribe();
    await expect.poll(() => ofKind('chat').find((e) => e.to?.includes('human'))).toBeDefined();
    const explanation = ofKind('chat').find((e) => e.to?.includes('human'))!;
    expect(explanation.correlation_id).toEqual([rejectId]);
    expect(explanation.payload).toMatchObject({ text: expect.stringMatching(/I wanted to start the notes for "Daily stand-up".*try something else/) });

    await expect.poll(() => ofKind('mcp/proposal').length).toBe(2);
    const [rejected, next] = ofKind('mcp/proposal').map((p) => (p.payload as { params: { arguments: { path: string } } }).params.arguments.path);
    expect(rejected).toContain('standup');
    expect(next).toContain('design-review');
    expect(existsSync(sandboxFile(rejected))).toBe(false);
  });

  it('drops a task whose reasoning someone cancelled, and goes on with the next one', async () => {
    decide(() => 'leave');
    // A slower pace (150 ms between thoughts), so the cancel surely lands while the thoughts are still coming.
    await startScribeAgent({ ...space.agentOptions('scribe'), paceMs: TEST_PACE_MS * 25 }).then(space.track);
    await expect.poll(() => ofKind('reasoning/thought').length).toBeGreaterThanOrEqual(1);
    const [start] = ofKind('reasoning/start');
    human.send({ kind: 'reasoning/cancel', context: start.id, payload: { reason: 'not now' } });
    await expect.poll(() => ofKind('mcp/proposal').length).toBe(1);
    expect(ofKind('reasoning/thought').filter((e) => e.context === start.id).length).toBeLessThan(3);
    expect(JSON.stringify(ofKind('mcp/proposal')[0].payload)).toContain('design-review');
  });

  it('acknowledges and answers a chat, and drafts the notes it was asked for next', async () => {
    decide(() => 'leave');
    await startScribe();
    const ask = human.chat.send('Could you take notes on the budget review?', 'scribe');
    await expect.poll(() => ofKind('chat/acknowledge').find((e) => e.correlation_id?.includes(ask.id))).toBeDefined();
    await expect
      .poll(() => ofKind('chat').find((e) => e.correlation_id?.includes(ask.id))?.payload)
      .toMatchObject({
        text: expect.stringContaining('"Budget review"'),
      });
    await expect.poll(() => ofKind('reasoning/start').find((e) => e.correlation_id?.includes(ask.id))).toBeDefined();
    await expect
      .poll(() =>
        ofKind('mcp/proposal')
          .map((p) => JSON.stringify(p.payload))
          .join(),
      )
      .toContain(`notes/${today()}-budget-review.md`);
  });

  it('forget, compact and clear shrink its working context and the status it reports', async () => {
    decide((_, index) => (index < 4 ? 'approve' : 'leave'));
    const scribe = await startScribe();
    // The fifth proposal stays pending: its context is frozen while it waits.
    await expect.poll(() => ofKind('mcp/proposal').length).toBe(5);
    await expect.poll(() => ofKind('participant/status').at(-1)?.payload?.status).toBe('awaiting_approval');

    // The status that answers a control (for a compact, the one after `compacting`).
    const answering = (controlId: string) =>
      ofKind('participant/status').find((e) => e.correlation_id?.includes(controlId) && (e.payload as { status?: string }).status !== 'compacting');
    const statusAnswering = async (controlId: string) => {
      await expect.poll(() => answering(controlId)).toBeDefined();
      return answering(controlId)!.payload as { tokens: number; messages_in_context: number };
    };
    const before = await statusAnswering(control(human, 'scribe', 'participant/request-status'));
    expect(before.messages_in_context).toBe(scribe.context.size.messages);
    expect(before.messages_in_context).toBeGreaterThan(20);

    const forgotten = await statusAnswering(control(human, 'scribe', 'participant/forget', { direction: 'oldest', entries: 3 }));
    expect(forgotten.messages_in_context).toBe(before.messages_in_context - 3);
    expect(forgotten.tokens).toBeLessThan(before.tokens);

    const compactId = control(human, 'scribe', 'participant/compact', { reason: 'token_pressure' });
    const compacted = await statusAnswering(compactId);
    const done = ofKind('participant/compact-done').find((e) => e.correlation_id?.includes(compactId))!.payload as Record<string, number>;
    expect(compacted.messages_in_context).toBe(3); // one summary + the two newest entries
    expect(done.freed_messages).toBe(forgotten.messages_in_context - 3);
    expect(done.freed_tokens).toBe(forgotten.tokens - compacted.tokens);
    expect(scribe.context.entries()[0]).toMatchObject({ kind: 'summary', text: expect.stringContaining('Summary of') });

    const cleared = await statusAnswering(control(human, 'scribe', 'participant/clear'));
    expect(cleared).toMatchObject({ messages_in_context: 0, tokens: 0 });
  });

  it('stops proposing while paused, without sends the gateway would refuse, and goes on after resume', async () => {
    decide(() => 'approve');
    const scribe = await startScribe();
    const refusals = collect(scribe, (e) => e.kind === 'system/error');
    await expect.poll(() => ofKind('mcp/proposal').length).toBeGreaterThanOrEqual(1);
    const pauseId = control(human, 'scribe', 'participant/pause', { reason: 'test' });
    await expect.poll(() => ofKind('participant/status').find((e) => e.correlation_id?.includes(pauseId))?.payload?.status).toBe('paused');
    // What the scribe had already sent when the pause reached the gateway is refused, however many that was
    // (it cannot know sooner). Once its work is parked it sends nothing; a round trip on its own connection then
    // brings every refusal still on the way (the gateway answers one connection in order).
    await expect.poll(() => scribe.parked).toBe(true);
    await roundTrip(scribe);
    const proposalsWhenPaused = ofKind('mcp/proposal').length;
    const sentWhenPaused = fromScribe.length;
    const refusedWhenPaused = refusals.length;
    await roundTrip(scribe);
    expect(scribe.parked).toBe(true);
    expect(ofKind('mcp/proposal')).toHaveLength(proposalsWhenPaused);
    expect(fromScribe).toHaveLength(sentWhenPaused + 1); // the second round trip's own report
    expect(refusals).toHaveLength(refusedWhenPaused);

    control(human, 'scribe', 'participant/resume');
    await expect.poll(() => ofKind('mcp/proposal').length).toBeGreaterThan(proposalsWhenPaused);
  });

  it('idles on shutdown while staying connected, and ends for a fresh start on restart', async () => {
    decide(() => 'leave');
    const scribe = await startScribe();
    await expect.poll(() => ofKind('mcp/proposal').length).toBe(1);
    const shutdownId = control(human, 'scribe', 'participant/shutdown');
    const answering = (kind: string, id: string) => ofKind(kind).find((e) => e.correlation_id?.includes(id))?.payload;
    await expect.poll(() => answering('chat/acknowledge', shutdownId)).toEqual({ status: 'shutting_down' });
    await expect.poll(() => ofKind('participant/status').at(-1)?.payload?.status).toBe('shutdown');
    await expect.poll(() => scribe.parked).toBe(true);
    await roundTrip(scribe);
    const sentAtShutdown = fromScribe.length;
    await roundTrip(scribe);
    expect(fromScribe.length).toBe(sentAtShutdown + 1); // only the round trip's own report
    expect(human.participants.map((p) => p.id)).toContain('scribe');
    expect(scribe.state).toBe('shutdown');

    const restartId = control(human, 'scribe', 'participant/restart');
    expect(await scribe.exited).toBe('restart');
    await expect.poll(() => answering('participant/status', restartId)).toMatchObject({ status: 'restarting' });
  });
});
