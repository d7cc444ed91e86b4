import { PARTICIPANT_ID_PATTERN } from '@/lib/protocol';

/** Why `id` would be refused, or undefined when it is valid. */
export function participantIdProblem(id: string): string | undefined {
  if (id.length === 0) return 'Enter an id.';
  if (id.length > 64) return 'At most 64 characters.';
  if (id === '.' || id === '..') return 'Cannot be "." or "..".';
  if (!PARTICIPANT_ID_PATTERN.test(id)) return 'Use only letters, digits and . _ : @ -';
  return undefined;
}
