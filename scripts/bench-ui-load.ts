/**
 * The routine load of `npm run bench:ui`, in a process of its own: sending 20 000 envelopes/s takes a good part of
 * a core, and in the bench's process it would delay the timestamps the measurements are made of. Also the raw
 * participant connection both use.
 *
 * The mix per agent, by share of the envelopes sent (spread over the agents so that each sends all four):
 * stream frames 50 % (tokens as they are generated), reasoning thoughts 25 %, `participant/status` reports with
 * token counts 15 %, chat 10 %.
 */
import { fork } from 'node:child_process';
import type { Socket } from 'node:net';
import WebSocket from 'ws';

/** The measured page's participant: the target of every agent's stream. */
export const PAGE_PARTICIPANT = 'human';
/**
 * Whom the agents address their envelopes to: their lead, configured but never connected. The agents are in
 * directed mode, so they do not each receive the others' traffic (at 20 000 envelopes/s, 50 agents would take a
 * million deliveries a second off the two CPUs the page is measured on), while the page, in broadcast mode like any
 * supervisor's, still receives every envelope, none of them addressed to it.
 */
export const AGENT_LEAD = 'lead';
/** Sends are batched per timer tick; timers fire late on a busy machine, so each tick sends what is due by then. */
const TICK_MS = 10;
/** Kinds in proportion to their shares (out of 20: 50 / 25 / 15 / 10 %), as a list to pick from in turn. */
const SHARES = { frame: 10, thought: 5, status: 3, chat: 2 } as const;
const MIX = Object.entries(SHARES).flatMap(([kind, share]) => Array<keyof typeof SHARES>(share).fill(kind as keyof typeof SHARES));
const STATUS_MAX_TOKENS = 8000;

export const token = (id: string) => `bench-ui-${id}-token-000000`;

/** Frames to the gateway need no secret mask (it guards proxies, not a local bench); an all-zero one skips masking. */
const zeroMask = (mask: Buffer) => mask.fill(0);

/**
 * A raw participant: the bench needs its own timestamps, not the SDK's conveniences. Without `onEnvelope`, what
 * arrives after the welcome (a load sender's own echoes) is not even parsed.
 */
export function connect(url: string, id: string, onEnvelope?: (e: Record<string, any>) => void): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers: { Authorization: `Bearer ${token(id)}` }, generateMask: zeroMask });
    let joined = false;
    ws.on('message', (data) => {
      if (joined && !onEnvelope) return;
      const text = data.toString();
      if (text.startsWith('#')) return;
      const envelope = JSON.parse(text);
      if (envelope.kind === 'system/welcome') {
        joined = true;
        resolve(ws);
      }
      onEnvelope?.(envelope);
    });
    ws.on('error', reject);
  });
}

/** Asks the gateway for a text stream to the page and resolves with the id its `stream/open` assigns. */
function openStream(ws: WebSocket, requestId: string): Promise<string> {
  return new Promise((resolve) => {
    const onMessage = (data: WebSocket.RawData) => {
      const text = data.toString();
      if (!text.includes('"stream/open"') || !text.includes(requestId)) return;
      ws.off('message', onMessage);
      resolve(JSON.parse(text).payload.stream_id);
    };
    ws.on('message', onMessage);
    const payload = { direction: 'upload', encoding: 'text', target: [PAGE_PARTICIPANT], description: 'tokens as they are generated' };
    ws.send(JSON.stringify({ id: requestId, kind: 'stream/request', to: ['gateway'], payload }));
  });
}

/** ws has no batching API: corking its socket makes a tick's frames to one socket a single write. */
const socketOf = (ws: WebSocket) => (ws as unknown as { _socket: Socket })._socket;

interface LoadOptions {
  url: string;
  agents: string[];
  rate: number;
}
/** What the load process tells the bench: connected and streams open, then (after `stop`) how many it sent. */
type LoadReport = { ready: true } | { sent: number };
/** The argument that makes this module the load process rather than a library. */
const LOAD_FLAG = '--bench-ui-load';

/** Forks the load process: `ready` once its agents are connected, `start`, then `stop` resolves with how many it sent. */
export function startLoad(options: LoadOptions) {
  const child = fork(new URL(import.meta.url), [LOAD_FLAG, JSON.stringify(options)], { execArgv: ['--import', 'tsx'] });
  const next = () =>
    new Promise<LoadReport>((resolve, reject) => {
      const onExit = (code: number | null) => reject(new Error(`the load process exited (${code}) before reporting`));
      child.once('exit', onExit);
      child.once('message', (report) => {
        child.off('exit', onExit);
        resolve(report as LoadReport);
      });
    });
  return {
    ready: next(),
    start: () => child.send('start'),
    stop: async () => {
      child.send('stop');
      return ((await next()) as Extract<LoadReport, { sent: number }>).sent;
    },
    kill: () => child.kill(),
  };
}

async function runLoad({ url, agents, rate }: LoadOptions): Promise<void> {
  const sockets = await Promise.all(agents.map((a) => connect(url, a)));
  const streams = await Promise.all(sockets.map((ws, i) => openStream(ws, `bench-stream-${i}`)));
  sockets.forEach((ws, i) => {
    ws.send(JSON.stringify({ id: `bench-thread-${i}`, kind: 'reasoning/start', to: [AGENT_LEAD], payload: { message: 'working through the backlog' } }));
  });
  const to = [AGENT_LEAD];
  let n = 0;
  let ticker: ReturnType<typeof setInterval> | undefined;
  const report = (message: LoadReport) => process.send!(message);
  process.on('message', (command: 'start' | 'stop') => {
    if (command === 'stop') {
      clearInterval(ticker);
      report({ sent: n });
      for (const ws of sockets) ws.close();
      process.disconnect();
      return;
    }
    const started = Date.now();
    ticker = setInterval(() => {
      const due = Math.floor(((Date.now() - started) * rate) / 1000) - n;
      const corked = new Set<Socket>();
      for (let i = 0; i < due; i++, n++) {
        const agent = n % sockets.length;
        const socket = socketOf(sockets[agent]);
        if (!corked.has(socket)) {
          socket.cork();
          corked.add(socket);
        }
        // Each agent's own count walks it through the whole mix; the offset spreads the kinds across agents.
        const kind = MIX[(Math.floor(n / sockets.length) + agent) % MIX.length];
        if (kind === 'frame') {
          sockets[agent].send(`#${streams[agent]}#token${n} `);
          continue;
        }
        const body =
          kind === 'chat'
            ? { kind: 'chat', to, payload: { text: `progress update ${n}` } }
            : kind === 'status'
              ? {
                  kind: 'participant/status',
                  to,
                  payload: { tokens: 1000 + (n % 7000), max_tokens: STATUS_MAX_TOKENS, messages_in_context: n % 200, latency_ms: 100 + (n % 300) },
                }
              : { kind: 'reasoning/thought', to, context: `bench-thread-${agent}`, payload: { message: `considering option ${n}` } };
        sockets[agent].send(JSON.stringify(body));
      }
      for (const socket of corked) socket.uncork();
    }, TICK_MS);
  });
  report({ ready: true });
}

if (process.argv[2] === LOAD_FLAG) await runLoad(JSON.parse(process.argv[3]) as LoadOptions);
