import type { IncomingMessage, ServerResponse } from 'node:http';
import { isJsonContentType } from '@modelcontextprotocol/sdk/shared/mediaType.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  type JSONRPCMessage,
  type JSONRPCNotification,
  type JSONRPCRequest,
  type RequestId,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/sdk/types.js';
import { JSONRPC_ERROR_CODES } from '../protocol';

/**
 * Streamable HTTP's JSON answer, as a tiny SDK `Transport`: the SDK's `Server` handles one request per POST and its
 * response is written as the POST's JSON body. It takes only what it answers exactly as the SDK's own transport
 * would (`accepts`): a single request, sent as JSON by a client that accepts JSON and SSE, with a supported protocol
 * version. Everything else goes to the SDK's transport, which answers it or refuses it with its status.
 *
 * Why not the SDK's `WebStandardStreamableHTTPServerTransport` with `enableJsonResponse`: it builds a web `Request`,
 * headers, a `Response` and a stream for every call, and validates the envelope once more; on the direct-call path
 * that was a third of the endpoint's own time. Request and result are still validated by the `Server`'s handlers.
 */
export class JsonAnswerTransport implements Transport {
  onmessage?: Transport['onmessage'];
  onclose?: Transport['onclose'];
  onerror?: Transport['onerror'];
  private readonly answers = new Map<RequestId, (message: JSONRPCMessage) => void>();
  private closed = false;

  constructor(readonly sessionId: string) {}

  /** Whether `answer` takes this POST (its body already parsed). */
  accepts(req: IncomingMessage, body: unknown): body is JSONRPCRequest {
    const message = body as Partial<JSONRPCRequest> | null;
    const version = req.headers['mcp-protocol-version'];
    return (
      typeof message === 'object' &&
      message !== null &&
      message.jsonrpc === '2.0' &&
      typeof message.method === 'string' &&
      (typeof message.id === 'string' || typeof message.id === 'number') &&
      !this.answers.has(message.id) &&
      !this.closed &&
      req.headers.accept?.includes('application/json') === true &&
      req.headers.accept.includes('text/event-stream') &&
      isJsonContentType(req.headers['content-type']) &&
      (version === undefined || (typeof version === 'string' && SUPPORTED_PROTOCOL_VERSIONS.includes(version)))
    );
  }

  /** Hands the request to the server and writes its response (a result or a JSON-RPC error) as the HTTP answer. */
  async answer(res: ServerResponse, request: JSONRPCRequest): Promise<void> {
    // A client that went away before its answer (it died, or dropped the request) waits for nothing: cancelled.
    res.once('close', () => {
      if (!res.writableFinished) this.cancel(request.id);
    });
    const response = await new Promise<JSONRPCMessage>((resolve) => {
      this.answers.set(request.id, resolve);
      this.onmessage?.(request);
    });
    if (res.destroyed) return;
    const text = JSON.stringify(response);
    // Ended while it was handled: the status the SDK's transport gives a closed session.
    res.writeHead(this.closed ? 404 : 200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), 'mcp-session-id': this.sessionId });
    res.end(text);
  }

  /**
   * A client's notification for a request answered here: handed to the server. For a cancel, the request's HTTP
   * answer is ended at once, as the server sends no response for a cancelled request and the client may keep it open.
   */
  notify(notification: JSONRPCNotification): void {
    this.onmessage?.(notification);
    const cancelled = notification.method === 'notifications/cancelled' ? (notification.params?.requestId as RequestId | undefined) : undefined;
    if (cancelled !== undefined)
      void this.send({ jsonrpc: '2.0', id: cancelled, error: { code: JSONRPC_ERROR_CODES.requestCancelled, message: 'Request cancelled' } });
  }

  /** Cancels a request still being answered, as the client's own cancel would. */
  private cancel(requestId: RequestId): void {
    if (this.answers.has(requestId))
      this.notify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId, reason: 'the client closed the request' } });
  }

  async start(): Promise<void> {}

  async send(message: JSONRPCMessage): Promise<void> {
    // A JSON answer carries the response alone: what the server sends meanwhile (progress) has no stream to go to.
    const id = 'id' in message && ('result' in message || 'error' in message) ? message.id : undefined;
    if (id === undefined) return;
    const answer = this.answers.get(id);
    this.answers.delete(id);
    answer?.(message);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // Requests still being handled get the answer the SDK's transport gives a closed session.
    for (const [id, answer] of this.answers) answer({ jsonrpc: '2.0', id, error: { code: JSONRPC_ERROR_CODES.sessionNotFound, message: 'Session not found' } });
    this.answers.clear();
    this.onclose?.();
  }
}
