import type { Envelope } from '../protocol';
import type { ReasoningHandle } from '../sdk/reasoning-session';
import { GatewayRefusalError, McpError, ParticipantPausedError, ProposalRejectedError, RequestTimeoutError } from '../sdk/sdk-errors';
import { DemoAgent, type DemoAgentOptions } from './demo-agent';
import { DEFAULT_PACE_MS, FILES_PARTICIPANT_ID, NOTES_DIRECTORY, SCRIBE_MAX_TOKENS, SCRIBE_PROPOSAL_TIMEOUT_MS, THOUGHT_GAP_PACE_RATIO } from './demo-defaults';
import { ScribeNotebook, type ScribeTask, type TaskOutcome } from './scribe-notebook';
import { toolError } from './tool-result';

export interface ScribeOptions extends DemoAgentOptions {
  /** How long a proposal waits for a decision before it is withdrawn. @default SCRIBE_PROPOSAL_TIMEOUT_MS */
  proposalTimeoutMs?: number;
}

/** What came of one proposal. */
interface Settled {
  outcome: TaskOutcome;
  /** One line for the reasoning conclusion and the working context. */
  summary: string;
  /** For `rejected`: who rejected it and their `mcp/reject`, which the explanation in chat answers. */
  rejection?: { by: string; envelopeId?: string };
}

/** A chat asks the scribe for notes when it says so; anything else gets a short "what I do" answer. */
const NOTES_REQUEST = /\bnotes?\b/i;

/** Gateway refusals that mean "not now" rather than "never": the same task is retried after the resume. */
const NOT_NOW_CODES = new Set(['participant_paused', 'participant_shutdown']);

/**
 * The `scribe` agent: untrusted, it may only propose. It keeps meeting notes in the sandbox by a scripted loop
 * (see `ScribeNotebook`): for each task it opens a reasoning sequence (correlated to the chat that asked for
 * it, or to its own previous step), streams its thoughts (mirrored into a stream), proposes `write_file` or
 * `move_file` to the filesystem server (`files`) through `mcpRequest` (a proposal, since it holds no `mcp/request`), waits
 * for a human's decision, explains a rejection in chat and moves on. Its working context grows with each step
 * and is reported as `participant/status`; forget, compact and clear shrink it for real.
 *
 * @example
 * const scribe = await startScribeAgent({ gatewayUrl, space: 'demo', token, dataDir: 'data', paceMs: 7000 });
 */
export async function startScribeAgent(options: ScribeOptions): Promise<DemoAgent> {
  const notebook = new ScribeNotebook();
  const paceMs = options.paceMs ?? DEFAULT_PACE_MS;
  const proposalTimeoutMs = options.proposalTimeoutMs ?? SCRIBE_PROPOSAL_TIMEOUT_MS;
  const agent = new DemoAgent({
    ...options,
    maxTokens: SCRIBE_MAX_TOKENS,
    baseline: `I am the scribe. I keep meeting notes in ${NOTES_DIRECTORY}/ of the sandbox. I cannot touch files myself: I propose each write or move and a human decides.`,
    answerChat: (chat) => {
      if (!NOTES_REQUEST.test(chat.text)) {
        return `I'm the scribe: I keep meeting notes in ${NOTES_DIRECTORY}/. Ask me for "notes on <topic>" and I'll draft them next.`;
      }
      return `On it: I'll draft notes on "${notebook.request(chat.text, chat.id).title}" next.`;
    },
  });

  // The SDK's ProposalRejectedError names the rejecter but not its envelope, which the explanation replies to.
  const lastRejectFrom = new Map<string, string>();
  agent.client.on('mcp/reject', (reject: Envelope<'mcp/reject'>) => {
    if (reject.to?.includes(agent.id ?? '')) lastRejectFrom.set(reject.from, reject.id);
  });

  /** Proposes the task's tool call and waits for what becomes of it. */
  async function propose(task: ScribeTask): Promise<Settled> {
    const call = { method: 'tools/call', params: { name: task.tool, arguments: task.arguments } };
    const pending = agent.mcpRequest(FILES_PARTICIPANT_ID, call, proposalTimeoutMs);
    // What I proposed stays in my context, as it would in a model's.
    agent.remember('proposal', JSON.stringify(call.params));
    agent.reportStatus('awaiting_approval');
    const what = `${task.tool} ${task.path}`;
    try {
      const result = await pending;
      const refused = toolError(result);
      if (refused) return { outcome: 'failed', summary: `${FILES_PARTICIPANT_ID} could not do ${what}: ${refused}` };
      if (!('content' in task.arguments)) return { outcome: 'done', summary: `Archived ${task.path} to ${task.arguments.destination}` };
      return { outcome: 'done', summary: `Wrote ${task.path} (${Buffer.byteLength(task.arguments.content)} bytes)` };
    } catch (error) {
      if (error instanceof ProposalRejectedError) {
        const rejection = { by: error.rejectedBy, envelopeId: lastRejectFrom.get(error.rejectedBy) };
        return { outcome: 'rejected', summary: `${error.rejectedBy} rejected ${what} (${error.reason})`, rejection };
      }
      if (error instanceof RequestTimeoutError) return { outcome: 'timeout', summary: `Nobody decided on ${what} in time, so I withdrew it` };
      if (error instanceof ParticipantPausedError || (error instanceof GatewayRefusalError && NOT_NOW_CODES.has(error.code))) {
        return { outcome: 'interrupted', summary: `Stopped before proposing ${what}; I'll retry it` };
      }
      if (error instanceof McpError) return { outcome: 'failed', summary: `${what} failed: ${error.message}` };
      throw error;
    }
  }

  /** Says in chat why it wanted what was rejected, and what it does instead (spec §3.3.3: details follow a reject). */
  async function explainRejection(task: ScribeTask, rejection: NonNullable<Settled['rejection']>): Promise<void> {
    const { title } = notebook.next(new Date());
    const text = `${task.why} Understood, I'll leave it. Next I'll try something else: ${title.charAt(0).toLowerCase()}${title.slice(1)}.`;
    const sent = await agent.act(() => agent.chat.send(text, rejection.by, rejection.envelopeId ? { correlationId: [rejection.envelopeId] } : {}));
    if (sent) agent.remember('chat', `me: ${text}`);
  }

  /** Streams the task's thoughts; false if the reasoning was cancelled or the agent stopped. */
  async function think(task: ScribeTask, reasoning: ReasoningHandle): Promise<boolean> {
    for (const thought of task.thoughts) {
      if (!(await agent.sleep(paceMs * THOUGHT_GAP_PACE_RATIO))) return false;
      if (!(await agent.act(() => reasoning.thought(thought)))) return false;
      agent.remember('thought', thought);
    }
    return true;
  }

  /** One task, start to conclusion; returns its reasoning id (what the next step correlates to). */
  async function runTask(task: ScribeTask, previousStep: string | undefined): Promise<string | undefined> {
    const reasoning = await agent.act(() =>
      agent.reasoning.start({
        message: task.title,
        ...((task.trigger ?? previousStep) && { correlatedTo: task.trigger ?? previousStep }),
        mirrorToStream: agent.canSend('stream/request', { direction: 'upload' }),
      }),
    );
    if (!reasoning) return undefined;
    agent.remember('task', task.title);
    if (!(await think(task, reasoning))) {
      // Someone cancelled my reasoning (spec §3.5.5): they do not want this task; skip it.
      if (reasoning.cancelled) {
        notebook.settle(task, 'rejected');
        agent.remember('result', `${task.title}: cancelled by ${reasoning.cancellation?.by}`);
      }
      return reasoning.id;
    }
    if (!(await agent.waitUntilActive())) return reasoning.id;
    const started = Date.now();
    const settled = await propose(task);
    agent.telemetry.record({ latencyMs: Date.now() - started });
    notebook.settle(task, settled.outcome);
    agent.remember('result', settled.summary);
    if (settled.outcome === 'interrupted') reasoning.cancel('interrupted');
    else await agent.act(() => reasoning.conclude(`${settled.summary}.`));
    if (settled.rejection) await explainRejection(task, settled.rejection);
    agent.reportStatus();
    return reasoning.id;
  }

  await agent.connect();
  agent.run(async () => {
    let previousStep: string | undefined;
    while ((await agent.sleep(paceMs)) && (await agent.waitUntilActive())) {
      if (!agent.isPresent(FILES_PARTICIPANT_ID)) agent.reportStatus('waiting_for_files');
      else previousStep = (await runTask(notebook.next(new Date()), previousStep)) ?? previousStep;
    }
  });
  return agent;
}
