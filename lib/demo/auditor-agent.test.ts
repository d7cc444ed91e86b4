import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AnyEnvelope } from '../protocol';
import type { MEWParticipant } from '../sdk/mew-participant';
import { CapabilityDeniedError } from '../sdk/sdk-errors';
import type { DemoAgent } from './demo-agent';
import { auditNote, startAuditorAgent } from './auditor-agent';
import { collect, startDemoTestSpace, type DemoTestSpace } from './testing';

describe('auditor agent', () => {
  let space: DemoTestSpace;
  let human: MEWParticipant;
  let fromAuditor: AnyEnvelope[];
  let auditor: DemoAgent;

  beforeEach(async () => {
    space = await startDemoTestSpace();
    human = await space.connect('human');
    fromAuditor = collect(human, (e) => e.from === 'auditor');
    await space.startFiles();
    auditor = space.track(await startAuditorAgent(space.agentOptions('auditor')));
  });
  afterEach(() => space.close());

  const comments = () => fromAuditor.filter((e) => e.kind === 'chat').map((e) => (e.payload as { text: string }).text);

  it('reads the newest note with direct requests (no proposal) and comments on it in chat', async () => {
    await expect.poll(() => comments().join('|')).toContain('Audit of notes/kickoff.md: 43 words, 2 action items (1 open).');
    const requests = fromAuditor.filter((e) => e.kind === 'mcp/request');
    expect(requests.map((e) => (e.payload as { params?: { name?: string } }).params?.name)).toEqual(
      expect.arrayContaining(['list_directory', 'get_file_info', 'read_text_file']),
    );
    expect(requests.every((e) => e.to?.join() === 'files')).toBe(true);
    expect(fromAuditor.some((e) => e.kind === 'mcp/proposal')).toBe(false);
    expect(fromAuditor.some((e) => e.kind === 'participant/status' && e.payload.max_tokens === 4000)).toBe(true);

    // A newer note gets its own comment; an unchanged one none.
    await human.mcpRequest('files', {
      method: 'tools/call',
      params: { name: 'write_file', arguments: { path: 'notes/later.md', content: '# Later\n\nJust a few words here.\n' } },
    });
    await expect.poll(() => comments().join('|')).toContain('Audit of notes/later.md: 7 words, no action items yet.');
    expect(comments().filter((text) => text.includes('kickoff'))).toHaveLength(1);
  });

  it('cannot write: its capabilities allow write_file neither as a request nor as a proposal', async () => {
    const call = { method: 'tools/call', params: { name: 'write_file', arguments: { path: 'notes/x.md', content: 'y' } } };
    expect(auditor.canSend('mcp/request', { jsonrpc: '2.0', id: 1, ...call })).toBe(false);
    expect(auditor.canSend('mcp/proposal', call)).toBe(false);
    await expect(auditor.mcpRequest('files', call)).rejects.toBeInstanceOf(CapabilityDeniedError);
  });

  it('counts words and open and done action items', () => {
    expect(auditNote('# Title\n- [ ] a\n* [x] b\n- not an item')).toEqual({ words: 13, actionItems: 2, openActionItems: 1 });
  });
});
