import { CapabilityDeniedError, GatewayRefusalError, McpError, ProposalRejectedError, RequestTimeoutError } from '../sdk-errors';

/**
 * What a `tools/call` result tells the model: its text contents (other content as JSON), marked when the tool
 * reported a failure (`isError`).
 *
 * @example
 * observationOf({ content: [{ type: 'text', text: '3' }] }); // '3'
 */
export function observationOf(result: unknown): string {
  const { content, isError, structuredContent } = (result ?? {}) as { content?: unknown; isError?: unknown; structuredContent?: unknown };
  const text = Array.isArray(content)
    ? content
        .map((item: { type?: unknown; text?: unknown }) => (item?.type === 'text' && typeof item.text === 'string' ? item.text : JSON.stringify(item)))
        .join('\n')
    : JSON.stringify(structuredContent ?? result ?? null);
  return isError === true ? `The tool reported an error: ${text}` : text;
}

/**
 * A failed call as an observation the model can act on, or undefined for failures that end the turn (connection
 * closed, paused): those are not the tool's answer.
 *
 * @example
 * observationOfError(new ProposalRejectedError('alice', 'unsafe'), 'outside the project');
 * // 'The call was rejected by alice: unsafe — outside the project'
 */
export function observationOfError(error: unknown, explanation?: string): string | undefined {
  if (error instanceof ProposalRejectedError) {
    return `The call was rejected by ${error.rejectedBy}: ${error.reason}${explanation ? ` — ${explanation}` : ''}`;
  }
  if (error instanceof McpError) return `The call failed with JSON-RPC error ${error.code}: ${error.reason}`;
  if (error instanceof RequestTimeoutError || error instanceof CapabilityDeniedError || error instanceof GatewayRefusalError) {
    return `The call failed: ${error.message}`;
  }
  return undefined;
}
