import { describe, expect, it } from 'vitest';
import { applyEnvelopes, createSpaceState, participantById, participantList, telemetryOf, type SpaceState } from '@/lib/store';
import { env, status, T0, welcome } from '@/lib/sdk/model/testing';
import { grantsToSelector } from './grants-to';

const agents = ['agent-1', 'agent-2', 'agent-3'];

function grant(id: string, recipient: string, at: number) {
  return env({ id, at, from: 'human', to: [recipient], kind: 'capability/grant', payload: { recipient, capabilities: [{ kind: 'chat' }] } });
}

function space(): SpaceState {
  return applyEnvelopes(
    createSpaceState({ me: 'human' }, T0),
    [welcome('human', agents), status('s-1', 'agent-1', { tokens: 100, max_tokens: 1000 }, 10)],
    T0 + 100,
  );
}

// What a participant card reads; each must keep its identity when only someone else's data changed.
describe('a participant card’s data', () => {
  it('is untouched by another participant’s status reports, and so is the rail’s list', () => {
    const before = space();
    const grantsOf2 = grantsToSelector('agent-2');
    const grants2 = grantsOf2(before);
    const after = applyEnvelopes(
      before,
      [status('s-2', 'agent-1', { tokens: 500, max_tokens: 1000 }, 20), status('s-3', 'agent-3', { tokens: 50, max_tokens: 1000 }, 30)],
      T0 + 200,
    );

    expect(telemetryOf(after, 'agent-1')?.gauge?.tokens).toBe(500);
    expect(participantList(after)).toBe(participantList(before));
    expect(participantById(after, 'agent-2')).toBe(participantById(before, 'agent-2'));
    expect(telemetryOf(after, 'agent-2')).toBe(telemetryOf(before, 'agent-2'));
    expect(grantsOf2(after)).toBe(grants2);
  });

  it('keeps one recipient’s grants while someone else is granted, and changes them on its own grant', () => {
    const grantsOf1 = grantsToSelector('agent-1');
    const grantsOf2 = grantsToSelector('agent-2');
    const first = applyEnvelopes(space(), [grant('g-1', 'agent-1', 40)], T0 + 300);
    const grants1 = grantsOf1(first);
    const grants2 = grantsOf2(first);
    expect(grants1.map((g) => g.id)).toEqual(['g-1']);
    expect(grants2).toEqual([]);

    const second = applyEnvelopes(first, [grant('g-2', 'agent-2', 50)], T0 + 400);
    expect(second.grants).not.toBe(first.grants);
    expect(grantsOf1(second)).toBe(grants1);
    expect(grantsOf2(second).map((g) => g.id)).toEqual(['g-2']);

    const third = applyEnvelopes(second, [grant('g-3', 'agent-1', 60)], T0 + 500);
    expect(grantsOf1(third).map((g) => g.id)).toEqual(['g-1', 'g-3']);
  });
});
