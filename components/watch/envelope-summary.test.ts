import { describe, expect, it } from 'vitest';
import { REF_CHAT_ACK, REF_CONCLUSION_CANCELLED, REF_REASONING_START, REF_THOUGHT_TOOL } from '@/lib/protocol/reference-shapes.fixture';
import type { StoreEnvelope } from '@/lib/store';
import { envelopeSummary } from './envelope-summary';

const summary = (envelope: Record<string, unknown>) => envelopeSummary(envelope as unknown as StoreEnvelope);

describe('envelopeSummary of the reference implementation’s envelopes', () => {
  it('shows its reasoning’s words and a thought’s action, and an acknowledgement’s status as it is', () => {
    expect(summary(REF_REASONING_START)).toBe('list the notes');
    expect(summary(REF_THOUGHT_TOOL)).toBe('I should see which notes exist before answering. → tool');
    expect(summary(REF_CONCLUSION_CANCELLED)).toBe('cancelled by user');
    expect(summary(REF_CHAT_ACK)).toBe('processing');
  });

  it('shows the spec’s reasoning as before', () => {
    expect(summary({ id: 't', from: 'a', kind: 'reasoning/thought', context: 's', payload: { message: 'checking the YAML' } })).toBe('checking the YAML');
    expect(summary({ id: 'c', from: 'a', kind: 'reasoning/cancel', context: 's', payload: { reason: 'superseded' } })).toBe('superseded');
  });
});
