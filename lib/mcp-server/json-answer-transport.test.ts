import { createServer, type IncomingMessage, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { JsonAnswerTransport } from './json-answer-transport';
import { JSONRPC_ERROR_CODES } from '../protocol';

const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' };

describe('JsonAnswerTransport', () => {
  let http: HttpServer | undefined;
  afterEach(
    () =>
      new Promise<void>((resolve) => {
        if (!http) return resolve();
        http.close(() => resolve());
        http.closeAllConnections(); // requests the tests leave unanswered
      }),
  );

  /** A real HTTP server whose POSTs the transport answers for an SDK `Server` with one tool. */
  async function serve(tool: (progress: () => Promise<void>, signal: AbortSignal) => Promise<string>) {
    const transport = new JsonAnswerTransport('session-1');
    let called: () => void = () => undefined;
    const toolCalled = new Promise<void>((resolve) => (called = resolve));
    const server = new Server({ name: 'test', version: '1.0.0' }, { capabilities: { tools: {} } });
    server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
      const progress = () =>
        extra.sendNotification({ method: 'notifications/progress', params: { progressToken: request.params._meta?.progressToken ?? 0, progress: 1 } });
      called();
      return { content: [{ type: 'text' as const, text: await tool(progress, extra.signal) }] };
    });
    await server.connect(transport);
    http = createServer(async (req, res) => {
      const body = JSON.parse(await text(req));
      if (body.method === 'notifications/cancelled') {
        transport.notify(body);
        res.writeHead(202).end();
      } else if (transport.accepts(req, body)) await transport.answer(res, body);
      else res.writeHead(400).end('not taken');
    });
    await new Promise<void>((resolve) => http!.listen(0, '127.0.0.1', resolve));
    const post = (body: unknown, headers: Record<string, string> = HEADERS, signal?: AbortSignal) =>
      fetch(`http://127.0.0.1:${(http!.address() as AddressInfo).port}/`, { method: 'POST', headers, body: JSON.stringify(body), signal });
    return { transport, post, toolCalled };
  }

  const call = (id: number | string) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'note', _meta: { progressToken: 7 } } });

  it('answers a request with its response as one JSON body, whatever the server sent meanwhile', async () => {
    const { post } = await serve(async (progress) => {
      await progress(); // no stream to carry it: dropped, the answer still comes
      return 'noted';
    });
    const res = await post(call(1));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(res.headers.get('mcp-session-id')).toBe('session-1');
    expect(await res.json()).toEqual({ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'noted' }] } });
  });

  it('takes only what it answers as the SDK transport would: one request, JSON in, JSON and SSE accepted, a supported version', async () => {
    let release: () => void = () => undefined;
    const { post, toolCalled } = await serve(() => new Promise((resolve) => (release = () => resolve('late'))));
    const taken = (body: unknown, headers: Record<string, string> = HEADERS) => post(body, headers).then((res) => res.status !== 400);
    expect(await taken([call(1)])).toBe(false); // a batch
    expect(await taken({ jsonrpc: '2.0', method: 'notifications/initialized' })).toBe(false);
    expect(await taken(call(1), { ...HEADERS, accept: 'application/json' })).toBe(false);
    expect(await taken(call(1), { ...HEADERS, 'content-type': 'text/plain' })).toBe(false);
    expect(await taken(call(1), { ...HEADERS, 'mcp-protocol-version': '1999-01-01' })).toBe(false);
    const { 'mcp-protocol-version': _, ...withoutVersion } = HEADERS;
    const first = post(call('a'), withoutVersion);
    await toolCalled;
    expect(await taken(call('a'))).toBe(false); // its id is still being answered
    release();
    expect(await (await first).json()).toMatchObject({ id: 'a', result: { content: [{ text: 'late' }] } });
  });

  it("hands a cancel to the server, which aborts the call, and ends the cancelled request's HTTP answer", async () => {
    let aborted = false;
    const { post, toolCalled } = await serve((_, signal) => new Promise(() => signal.addEventListener('abort', () => (aborted = true))));
    const pending = post(call(3));
    await toolCalled;
    expect((await post({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 3, reason: 'changed my mind' } })).status).toBe(202);
    expect(await (await pending).json()).toEqual({
      jsonrpc: '2.0',
      id: 3,
      error: { code: JSONRPC_ERROR_CODES.requestCancelled, message: 'Request cancelled' },
    });
    expect(aborted).toBe(true);
  });

  it('cancels a call whose client went away before its answer (no cancel sent)', async () => {
    let aborted = false;
    const { post, toolCalled } = await serve((_, signal) => new Promise(() => signal.addEventListener('abort', () => (aborted = true))));
    const client = new AbortController();
    const pending = post(call(5), HEADERS, client.signal).catch(() => 'gone');
    await toolCalled;
    client.abort();
    expect(await pending).toBe('gone');
    await expect.poll(() => aborted).toBe(true);
  });

  it('answers a request still being handled when the session ends as the SDK does a closed session: 404, -32001', async () => {
    const { transport, post, toolCalled } = await serve(() => new Promise(() => undefined));
    const pending = post(call(2));
    await toolCalled;
    await transport.close();
    const res = await pending;
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ jsonrpc: '2.0', id: 2, error: { code: -32001, message: 'Session not found' } });
  });
});

async function text(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
