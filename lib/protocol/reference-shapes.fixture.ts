// Test data only, written here (not copied): envelopes in the shapes the reference implementation (rjcorwin/mew-protocol
// v0.11) sends, as observed on the wire against our gateway. What sets them apart from the spec's examples: requests
// and responses without JSON-RPC framing (`{"method": "tools/list"}`, answered `{"result": …}`, the envelope ids their
// identity), ReAct thoughts `{reasoning, action, actionInput}` without `message`, a start with `input`, conclusions `{}`
// or `{cancelled, reason}`, and chat acknowledgements that say `processing`.

const TS = '2026-01-05T10:00:00.000Z';
const base = (id: string, from: string) => ({ protocol: 'mew/v0.4', id, ts: TS, from });

/** The reference agent's discovery: a `tools/list` with neither `jsonrpc` nor `id`, addressed to one participant. */
export const REF_TOOLS_LIST = { ...base('ref-list-1', 'mew'), to: ['calc'], kind: 'mcp/request', payload: { method: 'tools/list' } };

/** The reference agent's tool call, unframed too. */
export const REF_TOOLS_CALL = {
  ...base('ref-call-1', 'mew'),
  to: ['calc'],
  kind: 'mcp/request',
  payload: { method: 'tools/call', params: { name: 'add', arguments: { a: 2, b: 3 } } },
};

/** The reference participant's answer to a request: the result alone, correlated by envelope id. */
export const REF_RESPONSE = {
  ...base('ref-resp-1', 'calc'),
  to: ['mew'],
  kind: 'mcp/response',
  correlation_id: ['ref-list-1'],
  payload: { result: { tools: [{ name: 'add', description: 'Adds', inputSchema: { type: 'object' } }] } },
};

/** The reference agent's proposal: an unframed call for someone with the capability to fulfil. */
export const REF_PROPOSAL = {
  ...base('ref-prop-1', 'mew'),
  to: ['files'],
  kind: 'mcp/proposal',
  payload: { method: 'tools/call', params: { name: 'write_file', arguments: { path: 'notes.md', content: '# Notes' } } },
};

/** Its reasoning sequence: start with the chat's text as `input`, ReAct thoughts, an empty conclusion. */
export const REF_REASONING_START = { ...base('reason-1736071200000-abc', 'mew'), kind: 'reasoning/start', payload: { input: 'list the notes' } };

export const REF_THOUGHT_TOOL = {
  ...base('ref-thought-1', 'mew'),
  kind: 'reasoning/thought',
  context: 'reason-1736071200000-abc',
  payload: {
    reasoning: 'I should see which notes exist before answering.',
    action: 'tool',
    actionInput: { tool: 'files/list_directory', arguments: { path: '.' }, toolCallId: 'call_1' },
  },
};

export const REF_THOUGHT_RESPOND = {
  ...base('ref-thought-2', 'mew'),
  kind: 'reasoning/thought',
  context: 'reason-1736071200000-abc',
  payload: { reasoning: 'Two notes exist; I can answer.', action: 'respond', actionInput: 'There are two notes: a.md and b.md.' },
};

export const REF_CONCLUSION = { ...base('ref-conclusion-1', 'mew'), kind: 'reasoning/conclusion', context: 'reason-1736071200000-abc', payload: {} };

/** What it concludes with after a cancel. */
export const REF_CONCLUSION_CANCELLED = {
  ...base('ref-conclusion-2', 'mew'),
  kind: 'reasoning/conclusion',
  context: 'reason-1736071200000-abc',
  payload: { cancelled: true, reason: 'cancelled by user' },
};

/** Its acknowledgement of a chat it takes on. */
export const REF_CHAT_ACK = {
  ...base('ref-ack-1', 'mew'),
  to: ['human'],
  kind: 'chat/acknowledge',
  correlation_id: ['human-chat-1'],
  payload: { status: 'processing' },
};

/** Its context report (the spec's fields, with its own `status` words). */
export const REF_STATUS = {
  ...base('ref-status-1', 'mew'),
  kind: 'participant/status',
  payload: { tokens: 812, max_tokens: 20000, messages_in_context: 4, status: 'active' },
};

/** Every envelope above, in the order an agent's turn would send them. */
export const REFERENCE_SHAPED_ENVELOPES: readonly Record<string, unknown>[] = [
  REF_TOOLS_LIST,
  REF_RESPONSE,
  REF_TOOLS_CALL,
  REF_PROPOSAL,
  REF_CHAT_ACK,
  REF_REASONING_START,
  REF_THOUGHT_TOOL,
  REF_THOUGHT_RESPOND,
  REF_CONCLUSION,
  REF_CONCLUSION_CANCELLED,
  REF_STATUS,
];
