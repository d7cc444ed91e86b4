/**
 * The SDK's own spans, through `@opentelemetry/api` only (isomorphic), when the application registered an OpenTelemetry
 * SDK in its process (`NodeSDK.start()`, `trace.setGlobalTracerProvider`…). The API is not even loaded otherwise: the
 * gateway's own participants (the rule supervisor), the control room and uninstrumented agents pay a global lookup or
 * two per call (see "Tracing" in docs/sdk.md for the measured cost), and the server still loads no OpenTelemetry code
 * unless telemetry is configured (lib/telemetry/telemetry-loading.test.ts). Registered, the API is loaded (`import()`)
 * when a participant is created, or before its first call.
 *
 * - `mcpRequest` is a CLIENT span (`mcp/request <tool>` or `mcp/proposal <tool>`) under the caller's context, whose
 *   `traceparent` rides in the call's `params._meta`: the gateway's trace of the chain (proposal, decision, execution)
 *   continues it, and so does the participant that serves the call. It ends with the result, a JSON-RPC error, a
 *   rejection, a timeout, a withdrawal or a refusal, saying which (`mew.decision` for a proposal).
 * - Serving a request is a SERVER span continuing the `traceparent` the request carried (see `carriedTraceContext`).
 */
// Type-only: erased, so loading this module loads no OpenTelemetry code.
import type * as OtelApi from '@opentelemetry/api';
import type { Attributes, Context, Span, Tracer } from '@opentelemetry/api';
import { isMcpNotification, type Envelope } from '../protocol';
import {
  ERROR_TYPE,
  EXECUTE_TOOL,
  GEN_AI_OPERATION_NAME,
  GEN_AI_TOOL_NAME,
  JSONRPC_REQUEST_ID,
  MCP_METHOD_NAME,
  MCP_SESSION_ID,
  MEW_DECIDED_BY,
  MEW_DECIDER_KIND,
  MEW_DECISION,
  MEW_ENVELOPE_ID,
  MEW_KIND,
  MEW_PARTICIPANT,
  MEW_PROPOSAL_ID,
  MEW_REASON,
  MEW_SPACE,
  MEW_TARGET,
  type DeciderKind,
  type Decision,
} from '../protocol/trace-attributes';
import { carriedTraceContext, paramsWithTraceContext, type CarriedTraceContext } from '../protocol/trace-context';
import type { McpAnswer } from './local-mcp-server';
import type { Proposal } from './model/proposals-slice';
import { McpError, ProposalRejectedError, RequestCancelledError, RequestTimeoutError } from './sdk-errors';

/** The instrumentation scope of the SDK's spans (the gateway's are `mew-dashboard`). */
export const SDK_TRACER_NAME = 'mew-sdk';

/** Where `@opentelemetry/api` (major version 1) keeps what the process registered, whichever copy of it registered it. */
const OTEL_GLOBAL = Symbol.for('opentelemetry.js.api.1');

type Otel = typeof OtelApi;
let api: Otel | undefined;
let tracer: Tracer | undefined;
let loading: Promise<Otel | undefined> | undefined;

/** Whether the process registered a tracer provider through `@opentelemetry/api` (read without loading it). */
function providerRegistered(): boolean {
  return (globalThis as { [OTEL_GLOBAL]?: { trace?: unknown } })[OTEL_GLOBAL]?.trace !== undefined;
}

/**
 * The loaded API and the SDK's tracer, or undefined when nothing is registered (or the API is still loading: then the
 * load is started, and `loadOtel` awaits it).
 */
export function otel(): { api: Otel; tracer: Tracer } | undefined {
  if (api) return { api, tracer: (tracer ??= api.trace.getTracer(SDK_TRACER_NAME)) };
  if (providerRegistered()) void loadOtel();
  return undefined;
}

/** A tracer provider is registered and the API is not loaded yet: `await loadOtel()` before a call to trace it. */
export function otelPending(): boolean {
  return api === undefined && providerRegistered();
}

/** Loads `@opentelemetry/api` once, when a tracer provider is registered; resolves with it (undefined otherwise). */
export function loadOtel(): Promise<Otel | undefined> {
  if (api) return Promise.resolve(api);
  if (!providerRegistered()) return Promise.resolve(undefined);
  loading ??= import('@opentelemetry/api').then(
    (module) => (api = module),
    () => (loading = undefined),
  );
  return loading;
}

/** Where a participant's spans are: every span of it says its space and itself. */
export interface TraceScope {
  space: string;
  participant: string | undefined;
}

/** What a reason may say on a span: a code (`unsafe`, `policy`…), cut short; never free text at length. */
const REASON_LIMIT = 128;

type Payload = Record<string, unknown>;
const isRecord = (value: unknown): value is Payload => typeof value === 'object' && value !== null && !Array.isArray(value);

/** `params.name` of a `tools/call`. */
function toolNameOf(payload: { method: string; params?: unknown }): string | undefined {
  return payload.method === 'tools/call' && isRecord(payload.params) && typeof payload.params.name === 'string' ? payload.params.name : undefined;
}

/** The span's context as a `traceparent` carries it, when it names a trace (a no-op span outside any trace does not). */
function carriedOf(api: Otel, span: Span) {
  const spanContext = span.spanContext();
  if (!api.isSpanContextValid(spanContext)) return undefined;
  const traceState = spanContext.traceState?.serialize();
  return { traceId: spanContext.traceId, spanId: spanContext.spanId, traceFlags: spanContext.traceFlags, ...(traceState && { traceState }) };
}

/**
 * What every MCP span says of the call (MCP and GenAI semantic conventions, and MEW's own): `from` sent it to `target`,
 * as on the gateway's spans of the same call.
 */
function callAttributes(
  kind: string,
  payload: { method: string; params?: unknown; id?: unknown },
  space: string,
  from: string | undefined,
  target: string | undefined,
): Attributes {
  const tool = toolNameOf(payload);
  const attributes: Attributes = {
    [MEW_SPACE]: space,
    [MCP_SESSION_ID]: space,
    [MEW_KIND]: kind,
    [MCP_METHOD_NAME]: payload.method,
  };
  if (from !== undefined) attributes[MEW_PARTICIPANT] = from;
  if (target !== undefined) attributes[MEW_TARGET] = target;
  if (tool !== undefined) {
    attributes[GEN_AI_TOOL_NAME] = tool;
    attributes[GEN_AI_OPERATION_NAME] = EXECUTE_TOOL;
  }
  if (typeof payload.id === 'string' || typeof payload.id === 'number') attributes[JSONRPC_REQUEST_ID] = String(payload.id);
  return attributes;
}

/** An `mcpRequest` being traced: its span, and the payload to send (carrying the span's `traceparent`). */
export interface TracedMcpCall<P extends { method: string; params?: unknown } = { method: string }> {
  span: Span;
  payload: P;
}

/** `parent`, or when it holds no span, the trace `carried` names (a remote parent), if any. */
function continuing(api: Otel, parent: Context, carried: CarriedTraceContext | undefined): Context {
  const current = api.trace.getSpanContext(parent);
  if (!carried || (current && api.isSpanContextValid(current))) return parent;
  return api.trace.setSpanContext(parent, {
    traceId: carried.traceId,
    spanId: carried.spanId,
    traceFlags: carried.traceFlags,
    isRemote: true,
    ...(carried.traceState !== undefined && { traceState: api.createTraceState(carried.traceState) }),
  });
}

/**
 * Starts the CLIENT span of an `mcp/request` or `mcp/proposal` I am about to send, under `parent` (default: the active
 * context; when that holds no span, a `traceparent` the call already carries in `_meta`), and returns the payload
 * with its own `traceparent` in `params._meta` (params that are not an object, a JSON-RPC array, are left alone).
 * Undefined when no tracer provider is registered: the call is sent as is.
 */
export function startMcpCall<P extends { method: string; params?: unknown; id?: unknown }>(
  kind: 'mcp/request' | 'mcp/proposal',
  to: readonly string[],
  payload: P,
  scope: TraceScope,
  parent?: Context,
): TracedMcpCall<P> | undefined {
  const loaded = otel();
  if (!loaded) return undefined;
  const { api, tracer } = loaded;
  const span = tracer.startSpan(
    `${kind} ${toolNameOf(payload) ?? payload.method}`,
    { kind: api.SpanKind.CLIENT, attributes: callAttributes(kind, payload, scope.space, scope.participant, to[0]) },
    continuing(api, parent ?? api.context.active(), carriedTraceContext({ payload })),
  );
  const carried = carriedOf(api, span);
  const params = carried && paramsWithTraceContext(payload.params, carried);
  return { span, payload: params ? { ...payload, params } : payload };
}

/**
 * Ends an `mcpRequest`'s span when `result` settles: the result (a tool's `isError` is an error), or the error it
 * failed with. A proposal's span also says what became of it (`mew.decision`: approved, rejected, withdrawn,
 * expired) and who decided, read from my space model (`proposal`). Returns nothing and attaches nothing when the span
 * records nothing.
 */
export function followMcpCall(
  span: Span,
  envelopeId: string,
  kind: 'mcp/request' | 'mcp/proposal',
  result: Promise<unknown>,
  proposal: () => Proposal | undefined,
): void {
  if (!span.isRecording()) return;
  span.setAttribute(kind === 'mcp/proposal' ? MEW_PROPOSAL_ID : MEW_ENVELOPE_ID, envelopeId);
  result.then(
    (value) => {
      if (kind === 'mcp/proposal') span.setAttributes(approval(proposal()));
      if (isRecord(value) && value.isError === true) markError(span, 'tool_error', 'the tool reported an error');
      span.end();
    },
    (error: unknown) => endMcpCall(span, error, kind === 'mcp/proposal' ? proposal() : undefined),
  );
}

/** Ends an `mcpRequest`'s span with the error it failed with (also when it could not be sent at all). */
export function endMcpCall(span: Span, error: unknown, proposal?: Proposal): void {
  if (!span.isRecording()) return;
  const decided = proposal ? decisionOf(error, proposal) : undefined;
  if (decided) span.setAttributes(decided);
  markError(span, errorTypeOf(error), error instanceof Error ? error.message : String(error));
  span.end();
}

/** Who approved my proposal (its first fulfilment), when my model saw it. */
function approval(proposal: Proposal | undefined): Attributes {
  const fulfilment = proposal?.fulfilment;
  const decider: DeciderKind = fulfilment?.rule ? 'rule' : 'participant';
  return {
    [MEW_DECISION]: 'approved' satisfies Decision,
    ...(fulfilment && { [MEW_DECIDED_BY]: fulfilment.by, [MEW_DECIDER_KIND]: decider }),
  };
}

/** What a proposal that failed came to: rejected, withdrawn (by me: `withdraw`, an abort, a restart) or expired (my timeout). */
function decisionOf(error: unknown, proposal: Proposal): Attributes | undefined {
  if (error instanceof ProposalRejectedError) {
    const rule = proposal.rejections[0]?.rule;
    return {
      [MEW_DECISION]: 'rejected' satisfies Decision,
      [MEW_DECIDED_BY]: error.rejectedBy,
      [MEW_DECIDER_KIND]: (rule ? 'rule' : 'participant') satisfies DeciderKind,
      [MEW_REASON]: error.reason.slice(0, REASON_LIMIT),
    };
  }
  if (error instanceof RequestTimeoutError) return { [MEW_DECISION]: 'expired' satisfies Decision, [MEW_DECIDER_KIND]: 'timeout' satisfies DeciderKind };
  // Withdrawn by me: `withdraw(id, reason)`, my signal, a restart (why is the error's message, free text: not an attribute).
  if (error instanceof RequestCancelledError) return { [MEW_DECISION]: 'withdrawn' satisfies Decision, [MEW_DECIDER_KIND]: 'proposer' satisfies DeciderKind };
  // Approved, and the tool answered with a JSON-RPC error.
  if (error instanceof McpError) return approval(proposal);
  return undefined;
}

/** `error.type`: a JSON-RPC error's code, a gateway refusal's code, else the error's class (low cardinality either way). */
function errorTypeOf(error: unknown): string {
  if (error instanceof McpError) return String(error.code);
  const code = (error as { code?: unknown } | undefined)?.code;
  if (typeof code === 'string' && code.length > 0) return code;
  return error instanceof Error ? error.name : 'error';
}

/** `SpanStatusCode.ERROR`, named without loading the API. */
const STATUS_ERROR: OtelApi.SpanStatusCode.ERROR = 2;

function markError(span: Span, type: string, message: string): void {
  span.setAttribute(ERROR_TYPE, type);
  span.setStatus({ code: STATUS_ERROR, message: message.slice(0, 256) });
}

/**
 * Serves one `mcp/request` addressed to me inside a SERVER span that continues the `traceparent` it carried (else a
 * trace of its own), active while `answer` runs, so a tool's own spans are its children when a context manager is
 * registered. Notifications are answered without a span.
 */
export function traceServe(envelope: Envelope<'mcp/request'>, scope: TraceScope, answer: () => Promise<McpAnswer>): Promise<McpAnswer> {
  // Untraced, the answer is the handler's own promise: not even a frame more.
  if (isMcpNotification(envelope.payload) || (api === undefined && !providerRegistered())) return answer();
  return servedInSpan(envelope, scope, answer);
}

async function servedInSpan(envelope: Envelope<'mcp/request'>, scope: TraceScope, answer: () => Promise<McpAnswer>): Promise<McpAnswer> {
  const payload = envelope.payload;
  if (otelPending()) await loadOtel();
  const loaded = otel();
  if (!loaded) return answer();
  const { api, tracer } = loaded;
  // The request's own traceparent, else a trace of its own: what was active when the message arrived is unrelated.
  const parent = continuing(api, api.ROOT_CONTEXT, carriedTraceContext(envelope));
  const tool = toolNameOf(payload);
  const span = tracer.startSpan(
    tool === undefined ? payload.method : `${payload.method} ${tool}`,
    {
      kind: api.SpanKind.SERVER,
      attributes: { ...callAttributes(envelope.kind, payload, scope.space, envelope.from, scope.participant), [MEW_ENVELOPE_ID]: envelope.id },
    },
    parent,
  );
  if (!span.isRecording()) return answer();
  try {
    const answered = await api.context.with(api.trace.setSpan(parent, span), answer);
    if ('error' in answered) markError(span, String(answered.error.code), answered.error.message);
    else if (isRecord(answered.result) && answered.result.isError === true) markError(span, 'tool_error', 'the tool reported an error');
    return answered;
  } catch (error) {
    markError(span, errorTypeOf(error), error instanceof Error ? error.message : String(error));
    throw error;
  } finally {
    span.end();
  }
}
