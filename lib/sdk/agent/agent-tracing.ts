/**
 * MEWAgent's spans (GenAI semantic conventions), on the SDK's tracer (lib/sdk/sdk-tracing.ts): nothing at all, not even
 * the API loaded, unless the process registered a tracer provider. A turn is `invoke_agent <me>`; under it each model
 * call is `chat <model>` (its usage in tokens) and each tool call `execute_tool <tool>`, under which the call's own
 * `mcp/request` or `mcp/proposal` span continues into the gateway's trace of its approval and execution. Parents are
 * passed explicitly, so the tree holds without a context manager.
 */
import type { Attributes, Context, Span } from '@opentelemetry/api';
import {
  CHAT,
  ERROR_TYPE,
  EXECUTE_TOOL,
  GEN_AI_AGENT_NAME,
  GEN_AI_OPERATION_NAME,
  GEN_AI_PROVIDER_NAME,
  GEN_AI_REQUEST_MODEL,
  GEN_AI_TOOL_CALL_ID,
  GEN_AI_TOOL_NAME,
  GEN_AI_USAGE_INPUT_TOKENS,
  GEN_AI_USAGE_OUTPUT_TOKENS,
  INVOKE_AGENT,
  MEW_PARTICIPANT,
  MEW_SPACE,
  MEW_TARGET,
  MEW_TURN_OUTCOME,
  SERVER_ADDRESS,
} from '../../protocol/trace-attributes';
import { otel, type TraceScope } from '../sdk-tracing';
import { OPENAI_BASE_URL } from './agent-options';
import type { Completion } from './chat-model';

/** `gen_ai.provider.name` of the client the agent speaks through: the OpenAI API, at whatever compatible endpoint. */
const PROVIDER = 'openai';

/** What the model settings say on a span. */
export interface ModelScope extends TraceScope {
  model: string;
  baseUrl?: string;
}

function scopeAttributes(scope: TraceScope): Attributes {
  return { [MEW_SPACE]: scope.space, ...(scope.participant !== undefined && { [MEW_PARTICIPANT]: scope.participant }) };
}

function modelAttributes(scope: ModelScope): Attributes {
  return { [GEN_AI_REQUEST_MODEL]: scope.model, [GEN_AI_PROVIDER_NAME]: PROVIDER, [SERVER_ADDRESS]: hostOf(scope.baseUrl ?? OPENAI_BASE_URL) };
}

function hostOf(url: string): string {
  try {
    return new URL(url).hostname;
  } catch {
    return url;
  }
}

function fail(span: Span, type: string, error?: unknown): void {
  span.setAttribute(ERROR_TYPE, type);
  // SpanStatusCode.ERROR
  span.setStatus({ code: 2, ...(error instanceof Error && { message: error.message.slice(0, 256) }) });
}

/** `error.type`: an API error's HTTP status (the `openai` client's errors carry it), else the error's name. */
function errorTypeOf(error: unknown): string {
  const status = (error as { status?: unknown } | undefined)?.status;
  if (typeof status === 'number') return String(status);
  return error instanceof Error ? error.name : 'error';
}

/** One turn of the agent: its span, and the context its model and tool calls start under. */
export interface TurnTrace {
  span: Span;
  context: Context;
}

/** Starts a turn's `invoke_agent` span under the active context; undefined when nothing is traced. */
export function startTurn(scope: ModelScope): TurnTrace | undefined {
  const loaded = otel();
  if (!loaded) return undefined;
  const { api, tracer } = loaded;
  const parent = api.context.active();
  const span = tracer.startSpan(
    `${INVOKE_AGENT} ${scope.participant ?? 'agent'}`,
    {
      kind: api.SpanKind.INTERNAL,
      attributes: {
        ...scopeAttributes(scope),
        [GEN_AI_OPERATION_NAME]: INVOKE_AGENT,
        ...(scope.participant !== undefined && { [GEN_AI_AGENT_NAME]: scope.participant }),
        ...modelAttributes(scope),
      },
    },
    parent,
  );
  return { span, context: api.trace.setSpan(parent, span) };
}

/** Ends a turn's span: answered, or cancelled / failed with why. */
export function endTurn(turn: TurnTrace | undefined, outcome: 'answered' | 'cancelled' | 'failed', error?: Error): void {
  if (!turn?.span.isRecording()) return;
  turn.span.setAttribute(MEW_TURN_OUTCOME, outcome);
  if (outcome === 'cancelled') fail(turn.span, 'cancelled', error);
  else if (outcome === 'failed') fail(turn.span, errorTypeOf(error), error);
  turn.span.end();
}

/** Runs one model call in a `chat <model>` CLIENT span under `parent` (default: the active context), with its usage. */
export async function traceModelCall(scope: ModelScope, parent: Context | undefined, call: () => Promise<Completion>): Promise<Completion> {
  const loaded = otel();
  if (!loaded) return call();
  const { api, tracer } = loaded;
  const span = tracer.startSpan(
    `${CHAT} ${scope.model}`,
    { kind: api.SpanKind.CLIENT, attributes: { ...scopeAttributes(scope), [GEN_AI_OPERATION_NAME]: CHAT, ...modelAttributes(scope) } },
    parent ?? api.context.active(),
  );
  if (!span.isRecording()) return call();
  try {
    const reply = await call();
    if (reply.usage) {
      span.setAttributes({ [GEN_AI_USAGE_INPUT_TOKENS]: reply.usage.promptTokens, [GEN_AI_USAGE_OUTPUT_TOKENS]: reply.usage.completionTokens });
    }
    return reply;
  } catch (error) {
    fail(span, errorTypeOf(error), error);
    throw error;
  } finally {
    span.end();
  }
}

/**
 * One tool call of the model: an `execute_tool <tool>` span, which the MEW call it makes starts under (`context`);
 * neither when nothing is traced.
 */
export class ToolCallTrace {
  readonly span?: Span;
  readonly context?: Context;

  constructor(call: { id: string; name: string }, target: { participantId: string; tool: string } | undefined, scope: TraceScope, parent?: Context) {
    const loaded = otel();
    if (!loaded) return;
    const { api, tracer } = loaded;
    const from = parent ?? api.context.active();
    const tool = target?.tool ?? call.name;
    this.span = tracer.startSpan(
      `${EXECUTE_TOOL} ${tool}`,
      {
        kind: api.SpanKind.INTERNAL,
        attributes: {
          ...scopeAttributes(scope),
          [GEN_AI_OPERATION_NAME]: EXECUTE_TOOL,
          [GEN_AI_TOOL_NAME]: tool,
          [GEN_AI_TOOL_CALL_ID]: call.id,
          ...(target && { [MEW_TARGET]: target.participantId }),
        },
      },
      from,
    );
    this.context = api.trace.setSpan(from, this.span);
  }

  /** Ends the span with what the model is told; `errorType` when the call came to nothing (or the tool said it failed). */
  end<T>(observation: T, errorType?: string): T {
    if (errorType !== undefined && this.span?.isRecording()) fail(this.span, errorType);
    this.span?.end();
    return observation;
  }

  /** Ends the span with an error that ends the turn (disconnected, paused, cancelled). */
  abort(error: unknown): void {
    if (this.span?.isRecording()) fail(this.span, errorTypeOf(error), error);
    this.span?.end();
  }
}
