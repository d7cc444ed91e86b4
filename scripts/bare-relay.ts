/**
 * The baselines of `npm run bench`: a MEW relay with no parsing and no checks. It answers a join frame with a
 * bare welcome, then sends every frame to every socket (sender included, as the gateway does).
 *   naive    — one `ws.send` per socket per frame: what a straightforward relay does.
 *   batched  — the gateway's own write path (one pre-encoded frame per broadcast, writes coalesced per turn),
 *              so gateway ÷ batched is the cost of parsing, validation, enforcement and routing alone.
 * Usage: node --import tsx scripts/bare-relay.ts <port> <naive|batched>
 */
import type { Socket } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { encodeFrame } from '../lib/gateway/ws-frame';
import { WriteCoalescer } from '../lib/gateway/write-coalescer';

const port = Number(process.argv[2] ?? 0);
const mode = process.argv[3] === 'batched' ? 'batched' : 'naive';
const coalescer = new WriteCoalescer();
const sockets = new Map<WebSocket, Socket>();
const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false });

const server = (await import('node:http')).createServer();
server.on('upgrade', (req, socket, head) => {
  wss.handleUpgrade(req, socket, head, (ws) => {
    sockets.set(ws, socket as Socket);
    ws.on('close', () => sockets.delete(ws));
    let joined = false;
    ws.on('message', (data: Buffer) => {
      if (!joined) {
        joined = true;
        const { participantId } = JSON.parse(data.toString());
        ws.send(
          JSON.stringify({
            protocol: 'mew/v0.4',
            kind: 'system/welcome',
            to: [participantId],
            payload: { you: { id: participantId, capabilities: [] }, participants: [] },
          }),
        );
        return;
      }
      if (mode === 'naive') {
        for (const client of sockets.keys()) client.send(data);
      } else {
        const frame = encodeFrame(data);
        for (const socket of sockets.values()) coalescer.write(socket, frame, Infinity);
      }
    });
  });
});
server.listen(port, '127.0.0.1');
