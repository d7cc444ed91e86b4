import type { SpaceState, ToolInfo } from '@/lib/store';

// The few raw store reads this panel needs that lib/store has no selector for, kept in one place.

/** `name` as `participant`'s latest tools/list declared it. */
export function toolInfo(s: SpaceState, participant: string | undefined, name: string | undefined): ToolInfo | undefined {
  return participant === undefined || name === undefined ? undefined : s.tools.byParticipant.get(participant)?.byName.get(name);
}

/** Participants whose tools/list offers `name`. */
export function participantsOffering(s: SpaceState, name: string): string[] {
  return [...s.tools.byParticipant.values()].filter((t) => t.byName.has(name)).map((t) => t.participant);
}
