import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { AnyEnvelope } from '../protocol';
import type { MEWParticipant } from '../sdk/mew-participant';
import { type CallContext, reportWhileWaiting } from './waiting-progress';

/** The built-in tool an MCP client asks the space's humans a question with. */
export const ASK_HUMAN_TOOL = 'space__ask_human';
/** How long a question waits for its answer; past it the question is cancelled (`chat/cancel`). */
export const ANSWER_WAIT_MS = 15 * 60_000;

/** `space__ask_human` as `tools/list` shows it. */
export const askHumanTool: Tool = {
  name: ASK_HUMAN_TOOL,
  title: 'Ask a human',
  description:
    "Asks the people supervising this MEW space a question and waits for their answer (a chat correlated to it). Use it when you need a human's decision or information you cannot find.",
  inputSchema: {
    type: 'object',
    properties: {
      question: { type: 'string', description: 'The question, self-contained: the people reading it see nothing else.' },
      to: { type: 'array', items: { type: 'string' }, description: 'Participant ids to ask; omitted, everyone in the space sees it.' },
    },
    required: ['question'],
  },
  // An answer can take long: a client that supports tasks may run the question as one (`ApprovalTasks`).
  execution: { taskSupport: 'optional' },
  annotations: { readOnlyHint: true, openWorldHint: true },
};

/** Whether the participant may ask (a question is a `chat`). */
export function mayAsk(participant: MEWParticipant): boolean {
  return participant.canSend('chat', { text: '?', question: true });
}

/**
 * Sends the question (a `chat` marked `question: true`), then waits for the first chat from someone else that names
 * it in its `correlation_id`, reporting progress meanwhile; cancelling the call, or no answer in `ANSWER_WAIT_MS`,
 * cancels the question (`chat/cancel`).
 */
export async function askHuman(participant: MEWParticipant, args: Record<string, unknown>, call: CallContext): Promise<CallToolResult> {
  const question = typeof args.question === 'string' ? args.question.trim() : '';
  if (!question) return { isError: true, content: [{ type: 'text', text: '"question" must be a non-empty string.' }] };
  const to = Array.isArray(args.to) ? args.to.filter((id): id is string => typeof id === 'string') : undefined;
  const asked = participant.send({ kind: 'chat', ...(to?.length && { to }), payload: { text: question, question: true } });
  const stopReporting = reportWhileWaiting(call, () => `waiting for a human to answer in the space (question ${asked.id})`);
  try {
    const answer = await new Promise<AnyEnvelope | undefined>((resolve, reject) => {
      const finish = (value: AnyEnvelope | undefined, error?: unknown) => {
        clearTimeout(timer);
        off();
        call.signal.removeEventListener('abort', aborted);
        if (error) reject(error);
        else resolve(value);
      };
      const timer = setTimeout(() => finish(undefined), ANSWER_WAIT_MS);
      const aborted = () => finish(undefined, call.signal.reason ?? new Error('cancelled'));
      call.signal.addEventListener('abort', aborted, { once: true });
      const off = participant.client.on('chat', (chat) => {
        if (chat.from !== participant.id && chat.correlation_id?.includes(asked.id)) finish(chat);
      });
    });
    if (!answer) {
      cancelQuietly(participant, asked.id, 'timeout');
      return {
        isError: true,
        content: [{ type: 'text', text: `Nobody answered within ${Math.round(ANSWER_WAIT_MS / 60_000)} min; the question was withdrawn.` }],
      };
    }
    const text = String((answer.payload as { text?: unknown }).text ?? '');
    return { content: [{ type: 'text', text: `${answer.from}: ${text}` }], structuredContent: { answer: text, from: answer.from } };
  } catch (error) {
    cancelQuietly(participant, asked.id, 'cancelled');
    throw error;
  } finally {
    stopReporting();
  }
}

function cancelQuietly(participant: MEWParticipant, chatId: string, reason: string): void {
  try {
    participant.send({ kind: 'chat/cancel', correlation_id: [chatId], payload: { reason } });
  } catch {
    // The connection is gone: nobody is left to see the question as open.
  }
}
