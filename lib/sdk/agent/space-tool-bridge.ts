import type { Context } from '@opentelemetry/api';
import type { ChatCompletionFunctionTool } from 'openai/resources/chat/completions';
import type { MEWParticipant } from '../mew-participant';
import { McpError, ProposalRejectedError } from '../sdk-errors';
import { REJECTION_EXPLANATION_WAIT_MS } from './agent-options';
import type { ModelToolCall } from './chat-model';
import { LlmToolNames } from './llm-tool-names';
import { ToolCallTrace } from './agent-tracing';
import type { RejectionExplanations } from './rejection-explanations';
import { observationOf, observationOfError } from './tool-observation';

/** Used when a tool declares no input schema: chat-completions APIs want an object schema. */
const EMPTY_PARAMETERS = { type: 'object', properties: {} };

/**
 * Other participants' tools as the model sees them: discovered tools under API-safe names, and the model's calls
 * run as MEW `tools/call` requests (or proposals, when my capabilities only allow those). Whatever a call comes to,
 * a result, a tool error, a JSON-RPC error, a rejection, a timeout, is returned as an observation for the model.
 *
 * @example
 * const bridge = new SpaceToolBridge(participant, explanations);
 * const tools = bridge.tools(); // [{ type: 'function', function: { name: 'files__read_file', … } }]
 * await bridge.call({ id: 'c1', name: 'files__read_file', arguments: '{"path":"a.txt"}' }); // the file's text
 */
export class SpaceToolBridge {
  private readonly names = new LlmToolNames();

  constructor(
    private readonly participant: MEWParticipant,
    private readonly explanations: RejectionExplanations,
    /** My space, for the spans of my tool calls. */
    private readonly space = '',
  ) {}

  tools(): ChatCompletionFunctionTool[] {
    return this.participant.discovery.available().map((tool) => ({
      type: 'function',
      function: {
        name: this.names.nameFor({ participantId: tool.participantId, tool: tool.name }),
        description: `${tool.description ?? tool.name} (tool "${tool.name}" of participant ${tool.participantId})`,
        parameters: (tool.inputSchema as Record<string, unknown> | undefined) ?? EMPTY_PARAMETERS,
      },
    }));
  }

  /**
   * Runs one call of the model; throws only what ends the turn (disconnected, paused, `signal`). A cancelled turn
   * withdraws its pending proposal, so nobody approves what the agent no longer wants. The call is an `execute_tool`
   * span under `traceContext` (agent-tracing.ts), which its `mcp/request` or `mcp/proposal` span starts under.
   */
  async call(call: ModelToolCall, signal?: AbortSignal, traceContext?: Context): Promise<string> {
    const target = this.names.resolve(call.name);
    const traced = new ToolCallTrace(call, target, { space: this.space, participant: this.participant.id }, traceContext);
    if (!target) return traced.end(`There is no tool named ${call.name}; use one of the functions offered.`, 'unknown_tool');
    let args: unknown;
    try {
      args = call.arguments.trim() ? JSON.parse(call.arguments) : {};
    } catch {
      return traced.end(`The arguments of ${call.name} were not valid JSON: ${call.arguments}`, 'invalid_arguments');
    }
    if (typeof args !== 'object' || args === null || Array.isArray(args)) {
      return traced.end(`The arguments of ${call.name} must be a JSON object.`, 'invalid_arguments');
    }
    try {
      const result = await this.participant.mcpRequest(
        target.participantId,
        { method: 'tools/call', params: { name: target.tool, arguments: args as Record<string, unknown> } },
        undefined,
        { signal, traceContext: traced.context },
      );
      return traced.end(observationOf(result), (result as { isError?: unknown } | undefined)?.isError === true ? 'tool_error' : undefined);
    } catch (error) {
      const explanation =
        error instanceof ProposalRejectedError ? await this.explanations.explanation(error.rejectedBy, REJECTION_EXPLANATION_WAIT_MS) : undefined;
      const observation = observationOfError(error, explanation);
      if (observation === undefined) {
        traced.abort(error);
        throw error;
      }
      return traced.end(observation, error instanceof McpError ? String(error.code) : error instanceof Error ? error.name : 'error');
    }
  }
}
