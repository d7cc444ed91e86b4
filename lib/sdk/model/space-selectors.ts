import type { WireCapability } from '../../protocol';
import { awaitsAckFrom, mayAnswer, type ChatMessage, type ChatQuestion } from './chat-slice';
import { activeCapabilities, type GrantState } from './grants-slice';
import { memoSelector } from './memo-selector';
import type { ParticipantState } from './participants-slice';
import type { ReasoningStatus, ReasoningThread } from './reasoning-slice';
import type { SpaceState } from './space-state';
import type { StreamInfo } from './streams-slice';
import { seriesOf, type ParticipantTelemetry } from './telemetry-slice';
import type { ToolInfo } from './tools-slice';

const NONE: readonly never[] = [];

/** Participants for the rail: online first, then by id. Stable until participants change. */
export const participantList = memoSelector(
  (s) => [s.participants],
  (s): readonly ParticipantState[] => [...s.participants.byId.values()].sort((a, b) => Number(b.online) - Number(a.online) || a.id.localeCompare(b.id)),
);

/** One participant by id. */
export function participantById(state: SpaceState, id: string): ParticipantState | undefined {
  return state.participants.byId.get(id);
}

/** Grants, newest first; only those to `recipient` when given; revoked ones only with `includeRevoked`. */
export const grantList = memoSelector(
  (s) => [s.grants],
  (s, recipient?: string, includeRevoked = true): readonly GrantState[] =>
    [...s.grants.byId.values()]
      .filter((g) => (recipient === undefined || g.recipient === recipient) && (includeRevoked || !g.revoked))
      .sort((a, b) => b.at - a.at),
);

/** Capabilities granted to `recipient` and still in force (what its welcome/presence capabilities may not show yet). */
export const grantedCapabilities = memoSelector(
  (s) => [s.grants],
  (s, recipient: string): readonly WireCapability[] => grantList(s, recipient, false).flatMap((g) => activeCapabilities(g)),
);

/** A participant's telemetry (series, latest status, context gauge, staleness). */
export function telemetryOf(state: SpaceState, participant: string): ParticipantTelemetry | undefined {
  return state.telemetry.byParticipant.get(participant);
}

/** One telemetry field of a participant as `{at, value}` points (chart series). */
export const telemetrySeries = memoSelector(
  (s) => [s.telemetry],
  (s, participant: string, field: string): readonly { at: number; value: number }[] => {
    const t = s.telemetry.byParticipant.get(participant);
    return t ? seriesOf(t, field) : NONE;
  },
);

/** A participant's tools (from its latest `tools/list`). */
export function toolsOf(state: SpaceState, participant: string): readonly ToolInfo[] {
  return state.tools.byParticipant.get(participant)?.tools ?? NONE;
}

/** Reasoning threads, newest first; filtered by sender and/or status when given. */
export const reasoningThreads = memoSelector(
  (s) => [s.reasoning],
  (s, filter: { from?: string; state?: ReasoningStatus } = {}): readonly ReasoningThread[] =>
    [...s.reasoning.byId.values()]
      .filter((t) => (filter.from === undefined || t.from === filter.from) && (filter.state === undefined || t.state === filter.state))
      .sort((a, b) => b.startedAt - a.startedAt),
);

/** Streams not closed, oldest first. */
export const activeStreams = memoSelector(
  (s) => [s.streams],
  (s): readonly StreamInfo[] => [...s.streams.byId.values()].filter((st) => !st.closed).sort((a, b) => a.openedAt - b.openedAt),
);

/** Chat messages, oldest first (the same array until the next chat). */
export function chatMessages(state: SpaceState): readonly ChatMessage[] {
  return state.chat.messages.toArray();
}

/**
 * The acknowledgement queue: chats addressed to me that I have neither acknowledged nor seen cancelled (by their
 * sender or by me), oldest first. Empty until I know who I am. Stable until an addressed chat or a receipt arrives.
 */
export const awaitingMyAck = memoSelector(
  (s) => [s.chat.addressed, s.chat.ackVersion, s.connection.me],
  (s): readonly ChatMessage[] => {
    const me = s.connection.me;
    if (me === undefined) return NONE;
    return [...s.chat.addressed.values()].filter((m) => awaitsAckFrom(m, s.chat.receipts.get(m.id), me)).sort((a, b) => a.at - b.at || a.seq - b.seq);
  },
);

/**
 * Open questions I may answer (asked by someone else, of everyone or of me), oldest first. Empty until I know who I
 * am. Stable until a question, an answer or a withdrawal arrives.
 */
export const openQuestionsForMe = memoSelector(
  (s) => [s.chat.questions, s.chat.questionVersion, s.connection.me],
  (s): readonly ChatQuestion[] => {
    const me = s.connection.me;
    if (me === undefined) return NONE;
    return [...s.chat.questions.values()].filter((q) => mayAnswer(q, me)).sort((a, b) => a.message.at - b.message.at || a.message.seq - b.message.seq);
  },
);

/** A question by its chat's id (open, answered or withdrawn), while the model remembers it. */
export function questionById(state: SpaceState, id: string): ChatQuestion | undefined {
  return state.chat.questions.get(id);
}
