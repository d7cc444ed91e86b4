import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  type CancelledNotification,
  ListToolsRequestSchema,
  McpError as JsonRpcError,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import type { ToolRisk } from '../protocol';
import { MEWParticipant } from '../sdk/mew-participant';
import { type TransportFactory, withQuery } from '../sdk/transport';
import { CapabilityDeniedError, GatewayRefusalError, McpError, ProposalRejectedError, RequestCancelledError, RequestTimeoutError } from '../sdk/sdk-errors';
import type { DiscoveredTool } from '../sdk/tool-discovery';
import { ApprovalTasks } from './approval-tasks';
import { JsonAnswerTransport } from './json-answer-transport';
import type { OpenProposals } from './open-proposals';
import { ASK_HUMAN_TOOL, askHuman, askHumanTool, mayAsk } from './ask-human-tool';
import { exposedToolName } from './mcp-tool-names';
import { type CallContext, reportWhileWaiting } from './waiting-progress';

/** How long `tools/list` waits for discoveries under way (a participant that just joined) before answering with what is known. */
const DISCOVERY_WAIT_MS = 2_000;
/** How long a call that needs approval waits for a decision and the tool's answer; past it, the proposal is withdrawn. */
export const APPROVAL_WAIT_MS = 15 * 60_000;
/** How often a client should poll a task waiting for a person (`tasks/get`): a decision is seen within a second. */
const TASK_POLL_MS = 1_000;
/** How long a rejection's result waits for the explanation a rejector sends after it (a chat correlated to the reject). */
const EXPLANATION_WAIT_MS = 1_500;
/** How long an ending session waits for the gateway to echo the withdrawal of its proposals before it leaves. */
const WITHDRAW_WAIT_MS = 1_000;
/** `tools/list_changed` once the space's tools settle, not once per participant discovered. */
const LIST_CHANGED_DEBOUNCE_MS = 250;

/** `_meta` keys of a listed tool: who serves it, its name there, and whether a call runs at once or waits for approval. */
export const TOOL_META = { participant: 'mew/participant', tool: 'mew/tool', approval: 'mew/approval' } as const;

/** A tool of the space as this session lists it. */
interface ListedSpaceTool {
  participant: string;
  tool: string;
  approval: 'direct' | 'proposal';
}

export interface McpSessionOptions {
  /** The gateway's WebSocket URL (this server's own), where the session's participant joins. */
  gatewayUrl: string;
  /** How it joins: in this process, without a socket (`inProcessTransport`); a WebSocket when absent. */
  transport?: TransportFactory;
  space: string;
  /** The participant token the MCP client presented: the session is that participant. */
  token: string;
  log(line: string): void;
  /** Told once the transport has given the session its id (in its answer to `initialize`). */
  onInitialized(session: McpSpaceSession): void;
  /** Told once the session has ended, whoever ended it. */
  onClosed(session: McpSpaceSession): void;
  /**
   * The tools the space has seen listed (tool pinning keeps every `tools/list` answer), for a participant that may
   * propose calls but not ask for listings itself.
   */
  catalog?(): DiscoveredTool[];
  /** Where the proposals it waits on are recorded while it waits. */
  proposals?: Pick<OpenProposals, 'opened' | 'closed'>;
}

/**
 * One MCP client's session with a space: an MCP server (the official SDK's, over Streamable HTTP) whose tools are
 * the space's, backed by a `MEWParticipant` joined with the client's token, so the session is that participant, one
 * of its connections: presence, capabilities, pause, kick and rate limits apply as on a WebSocket. A tool it may
 * call is called (`mcp/request`); one it may only propose waits for a supervisor's decision (`mcp/proposal`),
 * reporting progress meanwhile; cancelling the call or ending the session withdraws the proposal.
 */
export class McpSpaceSession {
  /** The session's own transport: `initialize`, the server's stream (GET), its end (DELETE), and calls that may wait. */
  readonly transport: StreamableHTTPServerTransport;
  /** Answers as one JSON body what never waits for a person (no stream to set up: a direct call costs less). */
  private readonly immediate: JsonAnswerTransport;
  readonly participant: MEWParticipant;
  private readonly server: Server;
  private readonly immediateServer: Server;
  private readonly listing = new Map<string, ListedSpaceTool>();
  /** Calls run as tasks (clients that support them); the SDK answers `tasks/*` from it. */
  private readonly tasks = new ApprovalTasks();
  private listChanged?: ReturnType<typeof setTimeout>;
  private closed = false;
  /** The calls whose responses are streaming, by JSON-RPC id: aborted when the client cuts its response off. */
  private readonly responses = new Map<string | number, AbortController>();
  /** Calls under way: aborted (their proposals withdrawn) when the session ends. */
  private readonly calls = new Map<AbortController, { proposalId?: string }>();
  /** When the client opened it (its `initialize`). */
  readonly openedAt = Date.now();
  /** When a request of the client last arrived (idle sessions are ended). */
  lastUsed = Date.now();

  constructor(private readonly options: McpSessionOptions) {
    // Directed: the session receives what is addressed to it and what answers what it sent, not the whole space's
    // traffic (hundreds of sessions must not each parse every envelope of a busy space).
    this.participant = new MEWParticipant({
      gateway: withQuery(options.gatewayUrl, 'routing', 'directed'),
      space: options.space,
      token: options.token,
      autoDiscovery: true,
      ...(options.transport && { transport: options.transport }),
    });
    this.server = this.mcpServer(true);
    this.immediateServer = this.mcpServer(false);
    // Both transports serve the same session: the id the client gets when the session's own transport initializes.
    const sessionId = randomUUID();
    this.transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => sessionId, onsessioninitialized: () => options.onInitialized(this) });
    this.immediate = new JsonAnswerTransport(sessionId);
    this.transport.onclose = () => void this.close();
    for (const event of ['discovery', 'participant-join', 'participant-leave'] as const) this.participant.on(event, () => this.toolsMayHaveChanged());
    this.participant.client.on('status', (change) => {
      // Kicked, its token revoked, or the gateway gone for good: the session ends with its participant.
      if (change.status === 'error' || (change.status === 'disconnected' && !change.willReconnect)) void this.close();
    });
  }

  /**
   * The space's tools as an MCP server (one for each of the session's transports). The one on the session's streams
   * (`streaming`: calls that may wait) also runs them as tasks for a client that asks for one, and aborts a call whose
   * response the client cut off.
   */
  private mcpServer(streaming: boolean): Server {
    const server = new Server(
      { name: `mew-space-${this.options.space}`, version: '0.4.0' },
      {
        capabilities: {
          tools: { listChanged: true },
          ...(streaming && { tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } }),
        },
        instructions: `The tools of MEW space "${this.options.space}". A call marked mew/approval: proposal waits until a supervisor approves or rejects it.`,
        ...(streaming && { taskStore: this.tasks }),
      },
    );
    server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: await this.listTools() }));
    server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
      const { name, arguments: args = {}, task } = request.params;
      const call = (context: CallContext) =>
        name === ASK_HUMAN_TOOL && mayAsk(this.participant) ? askHuman(this.participant, args, context) : this.callTool(name, args, context);
      const { taskStore } = extra;
      if (task && taskStore) {
        const created = await taskStore.createTask({ ttl: task.ttl ?? APPROVAL_WAIT_MS, pollInterval: TASK_POLL_MS });
        this.tasks.run(
          created.taskId,
          (signal) => call({ signal, notify: async () => undefined }),
          (result) => taskStore.storeTaskResult(created.taskId, result.isError ? 'failed' : 'completed', result),
        );
        return { task: created };
      }
      const context = { progressToken: request.params._meta?.progressToken, notify: extra.sendNotification };
      // Answered at once (JSON): nothing waits long enough for a cut-off response to matter.
      if (!streaming) return call({ signal: extra.signal, ...context });
      // Cancelled (`notifications/cancelled`), or its response cut off: a client that died waits for nothing.
      const cutOff = new AbortController();
      this.responses.set(extra.requestId, cutOff);
      try {
        return await call({ signal: AbortSignal.any([extra.signal, cutOff.signal]), ...context });
      } finally {
        this.responses.delete(extra.requestId);
      }
    });
    return server;
  }

  /** Joins the space as the participant, then serves MCP on the transport. */
  async open(): Promise<void> {
    await this.participant.connect();
    await Promise.all([this.server.connect(this.transport), this.immediateServer.connect(this.immediate)]);
  }

  /**
   * Serves one HTTP request of the session. A POST whose answer never waits for a person (listing, a call it may
   * make directly) is answered as one JSON body; anything else goes to the session's streams, so a call waiting
   * for approval can report progress (SSE). Both serve the SDK's `Server` for the same session id: the SDK's own
   * transport, and a tiny one for JSON answers (`JsonAnswerTransport`).
   */
  async handle(req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
    this.lastUsed = Date.now();
    if (req.method === 'POST' && this.immediate.accepts(req, body) && this.answersAtOnce(body)) return this.immediate.answer(res, body);
    // A cancel may be for a call answered as JSON (a slow tool): both servers hear it.
    if (isCancellation(body)) this.immediate.notify(body);
    const id = (body as { id?: unknown } | null)?.id;
    if (typeof id === 'string' || typeof id === 'number')
      res.once('close', () => {
        // Closed before its answer was written: the client went away (it died, or dropped the request) without a cancel.
        if (!res.writableFinished) this.responses.get(id)?.abort(new Error('the client closed the request'));
      });
    await this.transport.handleRequest(req, res, body);
  }

  /** Whether every message of a POST is answered without waiting for anyone but the tool. */
  private answersAtOnce(body: unknown): boolean {
    const message = body as { method?: unknown; params?: { name?: unknown; task?: unknown } } | null;
    if (message?.method === 'tools/list') return true;
    if (message?.method !== 'tools/call' || typeof message.params?.name !== 'string' || message.params.task !== undefined) return false;
    const target = this.listing.get(message.params.name);
    return target !== undefined && this.approvalFor(target.tool) === 'direct';
  }

  get participantId(): string | undefined {
    return this.participant.id;
  }

  get sessionId(): string | undefined {
    return this.transport.sessionId;
  }

  /** What the client said it is in its `initialize` (`clientInfo`), once it has. */
  client(): { name: string; version: string } | undefined {
    const info = this.server.getClientVersion();
    return info && { name: info.name, version: info.version };
  }

  /** Its calls waiting for a supervisor's decision (each withdrawn if the session ends). */
  get waiting(): number {
    let n = 0;
    for (const call of this.calls.values()) if (call.proposalId !== undefined) n++;
    return n;
  }

  /** Ends the session: the proposals of calls under way are withdrawn, then the participant leaves and the transport closes. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.listChanged);
    const proposals = [...this.calls.values()].flatMap((call) => call.proposalId ?? []);
    for (const controller of this.calls.keys()) controller.abort(new Error('the MCP session ended'));
    this.tasks.close();
    await this.withdrawn(proposals);
    this.participant.disconnect();
    await Promise.all([this.server.close(), this.immediateServer.close()]).catch(() => undefined);
    this.options.onClosed(this);
  }

  /** Resolves once the gateway has echoed each proposal's withdrawal (or after `WITHDRAW_WAIT_MS`). */
  private withdrawn(proposalIds: readonly string[]): Promise<void> {
    const open = () => proposalIds.some((id) => this.participant.proposals.get(id)?.state === 'pending');
    if (!open()) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        off();
        resolve();
      };
      const timer = setTimeout(done, WITHDRAW_WAIT_MS);
      const off = this.participant.client.on('mcp/withdraw', () => queueMicrotask(() => !open() && done()));
    });
  }

  private toolsMayHaveChanged(): void {
    if (this.closed) return;
    clearTimeout(this.listChanged);
    this.listChanged = setTimeout(() => void this.server.sendToolListChanged().catch(() => undefined), LIST_CHANGED_DEBOUNCE_MS);
  }

  /** Every tool of the others that this participant may call or propose, as MCP tools, and asking a human. */
  private async listTools(): Promise<Tool[]> {
    const known = await this.spaceTools();
    this.listing.clear();
    const tools: Tool[] = mayAsk(this.participant) ? [askHumanTool] : [];
    for (const tool of known) {
      if (tool.participantId === this.participant.id) continue;
      const approval = this.approvalFor(tool.name);
      if (!approval) continue;
      const name = exposedToolName(tool.participantId, tool.name);
      this.listing.set(name, { participant: tool.participantId, tool: tool.name, approval });
      tools.push(mcpTool(name, tool, approval));
    }
    return tools;
  }

  /** The others' tools: those it discovers when it may ask for listings, else those the space has seen listed. */
  private async spaceTools(): Promise<DiscoveredTool[]> {
    if (!this.options.catalog || this.participant.canSend('mcp/request', { jsonrpc: '2.0', id: 0, method: 'tools/list' })) {
      await this.participant.discovery.waitForPending(DISCOVERY_WAIT_MS);
      return this.participant.discovery.available();
    }
    return this.options.catalog();
  }

  /** Whether a call of `tool` would be sent as a request or a proposal, or neither. */
  private approvalFor(tool: string): ListedSpaceTool['approval'] | undefined {
    const call = { method: 'tools/call', params: { name: tool } };
    if (this.participant.canSend('mcp/request', { jsonrpc: '2.0', id: 0, ...call })) return 'direct';
    if (this.participant.canSend('mcp/proposal', call)) return 'proposal';
    return undefined;
  }

  private async callTool(name: string, args: Record<string, unknown>, how: CallContext): Promise<CallToolResult> {
    if (!this.listing.has(name)) await this.listTools();
    const target = this.listing.get(name);
    if (!target) return errorResult(`No tool "${name}" in space "${this.options.space}" that you may call or propose (tools/list names them).`);
    const waitsForApproval = this.approvalFor(target.tool) === 'proposal';
    const controller = new AbortController();
    const call: { proposalId?: string } = {};
    this.calls.set(controller, call);
    const cancel = () => controller.abort(how.signal.reason);
    how.signal.addEventListener('abort', cancel, { once: true });
    let proposalId: string | undefined;
    let stopReporting: () => void = () => undefined;
    try {
      const result = await this.participant.mcpRequest(
        target.participant,
        { method: 'tools/call', params: { name: target.tool, arguments: args } },
        waitsForApproval ? APPROVAL_WAIT_MS : undefined,
        {
          signal: controller.signal,
          onSent: (envelope) => {
            if (envelope.kind !== 'mcp/proposal') return;
            proposalId = call.proposalId = envelope.id;
            if (this.participant.id) this.options.proposals?.opened(envelope.id, this.participant.id);
            stopReporting = reportWhileWaiting(how, () => `waiting for a supervisor of space "${this.options.space}" to approve proposal ${proposalId}`);
          },
        },
      );
      return result as CallToolResult;
    } catch (error) {
      return await this.failure(error, target, proposalId);
    } finally {
      stopReporting();
      if (proposalId) this.options.proposals?.closed(proposalId);
      this.calls.delete(controller);
      how.signal.removeEventListener('abort', cancel);
    }
  }

  /** What a call that did not produce the tool's result returns: an error result saying why, or a JSON-RPC error. */
  private async failure(error: unknown, target: ListedSpaceTool, proposalId: string | undefined): Promise<CallToolResult> {
    const what = `${target.participant}'s ${target.tool}`;
    if (error instanceof ProposalRejectedError) {
      const explanation = proposalId ? await this.explanationOf(proposalId) : undefined;
      return errorResult(`Rejected by ${error.rejectedBy} (${error.reason})${explanation ? `: ${explanation}` : '.'}`);
    }
    if (error instanceof RequestTimeoutError)
      return errorResult(
        proposalId
          ? `Nobody approved the call of ${what} within ${Math.round(APPROVAL_WAIT_MS / 60_000)} min; proposal ${proposalId} was withdrawn.`
          : `${target.participant} did not answer the call of ${what} in time.`,
      );
    if (error instanceof RequestCancelledError) return errorResult(`The call of ${what} was cancelled (${error.reason}).`);
    if (error instanceof CapabilityDeniedError) return errorResult(`Your capabilities no longer allow calling or proposing ${what}.`);
    if (error instanceof GatewayRefusalError) return errorResult(`The space refused the call of ${what}: ${error.code}: ${error.payload.message ?? ''}`);
    // The tool answered with a JSON-RPC error: the client gets it as such.
    if (error instanceof McpError) throw new JsonRpcError(error.code, error.reason, error.data);
    this.options.log(`call of ${what} failed: ${(error as Error).message}`);
    return errorResult(`The call of ${what} failed: ${(error as Error).message}`);
  }

  /** The explanation a rejector gives after its reject (a chat correlated to it), if it comes promptly. */
  private explanationOf(proposalId: string): Promise<string | undefined> {
    const read = () => this.participant.proposals.get(proposalId)?.rejections.find((r) => r.explanation)?.explanation?.text;
    const now = read();
    if (now !== undefined) return Promise.resolve(now);
    return new Promise((resolve) => {
      const done = (text: string | undefined) => {
        clearTimeout(timer);
        off();
        resolve(text);
      };
      const timer = setTimeout(() => done(read()), EXPLANATION_WAIT_MS);
      const off = this.participant.client.on('chat', () => queueMicrotask(() => read() !== undefined && done(read())));
    });
  }
}

function isCancellation(body: unknown): body is CancelledNotification & { jsonrpc: '2.0' } {
  const message = body as { jsonrpc?: unknown; method?: unknown; id?: unknown } | null;
  return message?.jsonrpc === '2.0' && message.method === 'notifications/cancelled' && message.id === undefined;
}

function errorResult(text: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text }] };
}

/** A space tool as an MCP client sees it: its server's schema and description, hints from its risk, and who serves it. */
function mcpTool(name: string, tool: DiscoveredTool, approval: ListedSpaceTool['approval']): Tool {
  const schema = tool.inputSchema as Tool['inputSchema'] | undefined;
  const waits = approval === 'proposal' ? ' Each call waits for a supervisor to approve it.' : '';
  return {
    name,
    title: `${tool.name} (${tool.participantId})`,
    description: `${tool.description ?? tool.name} [served by ${tool.participantId} in a MEW space.${waits}]`,
    inputSchema: schema?.type === 'object' ? schema : { type: 'object' },
    ...(tool.security && { annotations: annotationsOf(tool.security) }),
    // A call that waits for a person may run as a task, for clients that support them.
    ...(approval === 'proposal' && { execution: { taskSupport: 'optional' as const } }),
    _meta: { [TOOL_META.participant]: tool.participantId, [TOOL_META.tool]: tool.name, [TOOL_META.approval]: approval },
  };
}

/** MCP's hints for a tool's risk (the inverse of `securityFromAnnotations`). */
function annotationsOf(risk: ToolRisk): NonNullable<Tool['annotations']> {
  return {
    readOnlyHint: risk.risk_level === 'safe',
    destructiveHint: risk.risk_level === 'dangerous',
    ...(risk.side_effects?.includes('network') && { openWorldHint: true }),
  };
}
