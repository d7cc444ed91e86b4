// The names on MEW's spans and metrics: the GenAI and MCP semantic conventions where they apply, `mew.*` for the rest.
// Plain strings, shared by the gateway's telemetry (lib/telemetry, which loads no OpenTelemetry code while it is off)
// and the SDK's own spans (lib/sdk, isomorphic): one list of names for both ends of a trace.

/** GenAI semantic conventions (gen_ai.*). */
export const GEN_AI_OPERATION_NAME = 'gen_ai.operation.name';
export const GEN_AI_TOOL_NAME = 'gen_ai.tool.name';
export const GEN_AI_TOOL_CALL_ID = 'gen_ai.tool.call.id';
export const GEN_AI_TOOL_CALL_ARGUMENTS = 'gen_ai.tool.call.arguments';
export const GEN_AI_TOOL_CALL_RESULT = 'gen_ai.tool.call.result';
export const GEN_AI_USAGE_INPUT_TOKENS = 'gen_ai.usage.input_tokens';
export const GEN_AI_USAGE_OUTPUT_TOKENS = 'gen_ai.usage.output_tokens';
export const GEN_AI_REQUEST_MODEL = 'gen_ai.request.model';
export const GEN_AI_PROVIDER_NAME = 'gen_ai.provider.name';
export const GEN_AI_AGENT_NAME = 'gen_ai.agent.name';
/** `gen_ai.operation.name` of a tool's execution. */
export const EXECUTE_TOOL = 'execute_tool';
/** `gen_ai.operation.name` of a model call (chat completions). */
export const CHAT = 'chat';
/** `gen_ai.operation.name` of an agent's turn. */
export const INVOKE_AGENT = 'invoke_agent';

/** MCP semantic conventions (mcp.*). */
export const MCP_METHOD_NAME = 'mcp.method.name';
export const MCP_SESSION_ID = 'mcp.session.id';
export const JSONRPC_REQUEST_ID = 'jsonrpc.request.id';

/** General conventions. */
export const ERROR_TYPE = 'error.type';
export const SERVER_ADDRESS = 'server.address';

/** MEW's own. */
export const MEW_SPACE = 'mew.space';
/** Whose envelope the span (or the event) is about: the proposer, the fulfiller, the reasoning agent, the decider. */
export const MEW_PARTICIPANT = 'mew.participant';
export const MEW_KIND = 'mew.kind';
export const MEW_ENVELOPE_ID = 'mew.envelope.id';
/** The participant an `mcp/request` or `mcp/proposal` is addressed to (`to[0]`): whose tool would run. */
export const MEW_TARGET = 'mew.target';
/** Who answered a request (the `mcp/response`'s sender). */
export const MEW_RESPONDER = 'mew.responder';
export const MEW_PROPOSAL_ID = 'mew.proposal.id';
/** What became of a proposal: one of `DECISIONS`. */
export const MEW_DECISION = 'mew.decision';
/** The participant that decided (the fulfiller, the rejecter, the proposer withdrawing, the supervisor timing out). */
export const MEW_DECIDED_BY = 'mew.decided_by';
/** What kind of decider: one of `DECIDER_KINDS`. */
export const MEW_DECIDER_KIND = 'mew.decider.kind';
export const MEW_RULE_ID = 'mew.rule.id';
export const MEW_RULE_VERSION = 'mew.rule.version';
export const MEW_RULE_NAME = 'mew.rule.name';
/** An `mcp/reject`'s or `mcp/withdraw`'s reason code (`unsafe`, `policy`, `timeout`…), never free text. */
export const MEW_REASON = 'mew.reason';
/** The span was ended without its chain's end (the feature stopped, or it was forgotten): what it says is all there was. */
export const MEW_INCOMPLETE = 'mew.incomplete';
/** A chat's text and a thought's message (recorded only with MEW_OTEL_CAPTURE_CONTENT=true). */
export const MEW_MESSAGE = 'mew.message';
/** Tokens a `participant/status` reported: cumulative this session (`total_tokens`) and in context now (`tokens`). */
export const MEW_USAGE_TOTAL_TOKENS = 'mew.usage.total_tokens';
export const MEW_USAGE_CONTEXT_TOKENS = 'mew.usage.context_tokens';
export const MEW_USAGE_COST_USD = 'mew.usage.cost_usd';
/** How an agent's turn ended (`invoke_agent`): `answered`, `cancelled` or `failed`. */
export const MEW_TURN_OUTCOME = 'mew.turn.outcome';
/** Which count a token metric is: `total`, `context`, `input` or `output`. */
export const MEW_TOKEN_TYPE = 'mew.token.type';

/** What becomes of a proposal (`mew.decision`). */
export const DECISIONS = ['approved', 'rejected', 'withdrawn', 'expired', 'timeout'] as const;
export type Decision = (typeof DECISIONS)[number];

/**
 * Who decided (`mew.decider.kind`): a participant (a person or an agent), an approval rule (its decision names it),
 * the proposer itself (a withdrawal), or nobody in time (the supervisor's timeout, the proposer's own deadline).
 */
export const DECIDER_KINDS = ['participant', 'rule', 'proposer', 'timeout'] as const;
export type DeciderKind = (typeof DECIDER_KINDS)[number];

/** Metric names. */
export const METRICS = {
  pending: 'mew.proposals.pending',
  decisions: 'mew.proposal.decisions',
  decisionDuration: 'mew.proposal.decision.duration',
  routed: 'mew.envelopes.routed',
  refused: 'mew.envelopes.refused',
  deliveries: 'mew.deliveries',
  connections: 'mew.connections',
  online: 'mew.participants.online',
  tokens: 'mew.participant.tokens',
} as const;
