import { describe, expect, it } from 'vitest';
import { badgeText, pendingTitle } from './pending-badge';

describe('pending badge', () => {
  it('puts the number waiting before the space in the title, and nothing when none waits', () => {
    expect(pendingTitle('demo', 3)).toBe('(3) demo · MEW Dashboard');
    expect(pendingTitle('demo', 0)).toBe('demo · MEW Dashboard');
  });

  it('caps the badge at 99+', () => {
    expect([1, 99, 100, 5000].map(badgeText)).toEqual(['1', '99', '99+', '99+']);
  });
});
