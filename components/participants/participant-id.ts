/** The gateway's rule for participant ids (lib/gateway/space-config.ts), mirrored so the form says it first. */
const PARTICIPANT_ID = /^(?!\.{1,2}$)[A-Za-z0-9._:@-]{1,64}$/;

/** Why `id` would be refused, or undefined when it is valid. */
export function participantIdProblem(id: string): string | undefined {
  if (id.length === 0) return 'Enter an id.';
  if (id.length > 64) return 'At most 64 characters.';
  if (id === '.' || id === '..') return 'Cannot be "." or "..".';
  if (!PARTICIPANT_ID.test(id)) return 'Use only letters, digits and . _ : @ -';
  return undefined;
}
