/**
 * `npm run bench:ui`: the control room under load. Starts the production server on a bench space, opens the
 * dashboard in Chromium, drives 500 envelopes/s for 30 s (chats, statuses, thoughts, and a proposal a second)
 * from scripted participants, clicks Approve on some proposals, then prints: main-thread long tasks (> 50 ms:
 * count, worst), JS heap after the run, proposal send → card visible, and Approve click → fulfilling envelope
 * received through the gateway. Numbers, not assertions. Options: BENCH_UI_SECONDS, BENCH_UI_RATE, BENCH_UI_DEVICES
 * (how many pages are signed in as the supervisor at once; default 1, the measured one), and
 * BENCH_UI_PROFILE=<file.cpuprofile> to record the page's main-thread CPU profile during the load (open it in
 * Chrome DevTools) and print the functions with the most self time, and BENCH_UI_TRACE=<file.json> to record a
 * Chromium trace (open it in DevTools' Performance panel) and print where the long tasks' time went (script,
 * style, layout, paint, GC).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type CDPSession } from '@playwright/test';
import { SourceMapConsumer } from 'source-map-js';
import WebSocket from 'ws';
import { buildIfStale } from './build-if-stale.mjs';

const SECONDS = Number(process.env.BENCH_UI_SECONDS ?? 30);
const RATE = Number(process.env.BENCH_UI_RATE ?? 500);
/** Other devices signed in as the same supervisor, live during the run (the measured page is one more). */
const OTHER_DEVICES = Number(process.env.BENCH_UI_DEVICES ?? 1) - 1;
const AGENTS = 4;
const APPROVE_EVERY = 3; // click Approve on every third proposal
const token = (id: string) => `bench-ui-${id}-token-000000`;

function freePort(): Promise<number> {
  return new Promise((done) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => done(port));
    });
  });
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] : NaN;
}

/** A raw participant: the bench needs its own timestamps, not the SDK's conveniences. */
function connect(url: string, id: string, onEnvelope: (e: Record<string, any>) => void = () => {}): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers: { Authorization: `Bearer ${token(id)}` } });
    ws.on('message', (data) => {
      const text = data.toString();
      if (text.startsWith('#')) return;
      const envelope = JSON.parse(text);
      if (envelope.kind === 'system/welcome') resolve(ws);
      onEnvelope(envelope);
    });
    ws.on('error', reject);
  });
}

interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number } }[];
  samples?: number[];
  timeDeltas?: number[];
}

/** Source maps of the page's scripts, when the build has them (NEXT_BROWSER_SOURCE_MAPS=1 next build). */
async function loadSourceMaps(urls: string[]): Promise<Map<string, SourceMapConsumer>> {
  const maps = new Map<string, SourceMapConsumer>();
  for (const url of new Set(urls.filter((u) => u.startsWith('http')))) {
    const script = await fetch(url).then((r) => (r.ok ? r.text() : ''), () => '');
    const mapUrl = /\/\/# sourceMappingURL=(\S+)\s*$/.exec(script)?.[1];
    const response = mapUrl && (await fetch(new URL(mapUrl, url)).catch(() => undefined));
    if (response && response.ok) maps.set(url, new SourceMapConsumer(await response.json()));
  }
  return maps;
}

/** The functions with the most self time in a CPU profile, and the source files they come from, as short tables. */
async function printHotFunctions(profile: CpuProfile): Promise<void> {
  const byNode = new Map(profile.nodes.map((n) => [n.id, n]));
  const maps = await loadSourceMaps(profile.nodes.map((n) => n.callFrame.url));
  const names = new Map<number, { fn: string; file: string }>();
  for (const { id, callFrame: frame } of profile.nodes) {
    const original = maps.get(frame.url)?.originalPositionFor({ line: frame.lineNumber + 1, column: frame.columnNumber });
    const file = (original?.source ?? frame.url).replace(/^.*?(node_modules\/|\.\/)/, '').split('?')[0] || '(native)';
    const line = original?.source ? original.line : frame.lineNumber;
    names.set(id, { fn: `${original?.name ?? (frame.functionName || '(anonymous)')} ${file.split('/').pop()}:${line}`, file });
  }
  const byFunction = new Map<string, number>();
  const byFile = new Map<string, number>();
  (profile.samples ?? []).forEach((id, i) => {
    const ms = (profile.timeDeltas?.[i] ?? 0) / 1000;
    const { fn, file } = names.get(id) ?? { fn: '?', file: '?' };
    byFunction.set(fn, (byFunction.get(fn) ?? 0) + ms);
    byFile.set(file, (byFile.get(file) ?? 0) + ms);
  });
  const print = (title: string, table: Map<string, number>) => {
    console.log(title);
    for (const [key, ms] of [...table].sort((a, b) => b[1] - a[1]).slice(0, 15)) console.log(`  ${ms.toFixed(0).padStart(7)}  ${key}`);
  };
  print('hot functions (self ms):', byFunction);
  print('hot source files (self ms):', byFile);
}

interface TraceEvent {
  name: string;
  ph: string;
  pid: number;
  tid: number;
  ts: number;
  dur?: number;
  args?: { name?: string };
}

/** Self time by trace event name inside the renderer main thread's long tasks: is it script, style, layout or paint? */
function printLongTaskBreakdown(events: TraceEvent[]): void {
  const mainThreads = new Set(events.filter((e) => e.ph === 'M' && e.name === 'thread_name' && e.args?.name === 'CrRendererMain').map((e) => `${e.pid}:${e.tid}`));
  const byThread = new Map<string, TraceEvent[]>();
  for (const e of events) {
    const key = `${e.pid}:${e.tid}`;
    if (e.ph !== 'X' || !mainThreads.has(key)) continue;
    if (!byThread.has(key)) byThread.set(key, []);
    byThread.get(key)!.push(e);
  }
  const self = new Map<string, number>();
  let tasks = 0;
  let total = 0;
  for (const list of byThread.values()) {
    list.sort((a, b) => a.ts - b.ts || (b.dur ?? 0) - (a.dur ?? 0));
    const stack: { end: number; name: string; children: number; dur: number }[] = [];
    let inLongTask = false;
    const close = (upTo: number) => {
      while (stack.length && stack[stack.length - 1].end <= upTo) {
        const done = stack.pop()!;
        if (inLongTask) self.set(done.name, (self.get(done.name) ?? 0) + (done.dur - done.children) / 1000);
        if (stack.length) stack[stack.length - 1].children += done.dur;
        else inLongTask = false;
      }
    };
    for (const e of list) {
      close(e.ts);
      const dur = e.dur ?? 0;
      if (!stack.length) {
        inLongTask = dur > 50_000;
        if (inLongTask) {
          tasks++;
          total += dur / 1000;
        }
      }
      stack.push({ end: e.ts + dur, name: e.name, children: 0, dur });
    }
    close(Infinity);
  }
  console.log(`long-task time by event (self ms, ${tasks} tasks, ${total.toFixed(0)} ms):`);
  for (const [name, ms] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 15)) console.log(`  ${ms.toFixed(0).padStart(7)}  ${name}`);
}

/** Linux's CPU counters (jiffies): how much time the hypervisor took away is what makes one run differ from the next. */
function cpuTimes(): { total: number; steal: number } | undefined {
  if (!existsSync('/proc/stat')) return undefined;
  const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  return { total: fields.reduce((a, b) => a + b, 0), steal: fields[7] ?? 0 };
}

/** Chromium's cumulative main-thread times (seconds): a steadier measure of cost than counting long tasks. */
async function mainThreadMetrics(cdp: CDPSession): Promise<Record<string, number>> {
  const { metrics } = await cdp.send('Performance.getMetrics');
  return Object.fromEntries(metrics.map((m) => [m.name, m.value]));
}

async function main() {
  if (!buildIfStale()) process.exit(1);
  const dir = mkdtempSync(join(tmpdir(), 'mew-bench-ui-'));
  const agents = Array.from({ length: AGENTS }, (_, i) => `agent${i + 1}`);
  const participants: Record<string, unknown> = {
    human: { tokens: [token('human')], capabilities: [{ kind: '*' }] },
    tools: { tokens: [token('tools')], capabilities: [{ kind: ['mcp/response', 'chat', 'participant/status'] }] },
    proposer: { tokens: [token('proposer')], capabilities: [{ kind: ['mcp/proposal', 'chat'] }] },
  };
  for (const a of agents) participants[a] = { tokens: [token(a)], capabilities: [{ kind: ['chat', 'participant/status', 'reasoning/*'] }] };
  const config = { space: { id: 'bench-ui' }, participants, limits: { rate_per_second: 10_000, rate_burst: 10_000 } };
  writeFileSync(join(dir, 'space.json'), JSON.stringify(config));

  const port = await freePort();
  const server = spawn(process.execPath, ['--import', 'tsx', 'server.ts'], {
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, NODE_ENV: 'production', PORT: String(port), HOST: '127.0.0.1', MEW_SPACE_CONFIG: join(dir, 'space.json'), MEW_DATA_DIR: dir, NEXT_TELEMETRY_DISABLED: '1' },
  });
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--enable-precise-memory-info'],
  });
  try {
    for (let i = 0; i < 100; i++) {
      if (await fetch(`http://127.0.0.1:${port}/healthz`).then((r) => r.ok, () => false)) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const url = `ws://127.0.0.1:${port}/ws?space=bench-ui`;
    const fulfilledAt = new Map<string, number>();
    const gatewayEchoAt = new Map<string, number>();
    const tools = await connect(url, 'tools', (e) => {
      if (e.kind === 'mcp/proposal') gatewayEchoAt.set(e.id, Date.now());
      if (e.kind !== 'mcp/request' || !e.to?.includes('tools')) return;
      for (const id of e.correlation_id ?? []) fulfilledAt.set(id, Date.now());
      tools.send(JSON.stringify({ kind: 'mcp/response', to: [e.from], correlation_id: [e.id], payload: { jsonrpc: '2.0', id: e.payload.id, result: { content: [{ type: 'text', text: 'ok' }] } } }));
    });
    const proposer = await connect(url, 'proposer');
    const sockets = await Promise.all(agents.map((a) => connect(url, a)));

    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.addInitScript(() => {
      const w = window as unknown as { __longTasks: number[]; __seen: Record<string, number>; __clicks: Record<string, number>; __arrived: Record<string, number> };
      w.__longTasks = [];
      w.__seen = {};
      w.__clicks = {};
      w.__arrived = {};
      // When each proposal's frame reaches the page's script (before the SDK parses it): splits the visible
      // latency into getting to the page (network and the page's task queue) and onto the screen.
      const onmessage = Object.getOwnPropertyDescriptor(WebSocket.prototype, 'onmessage')!;
      Object.defineProperty(WebSocket.prototype, 'onmessage', {
        get() {
          return onmessage.get!.call(this);
        },
        set(handler: (event: MessageEvent) => void) {
          onmessage.set!.call(this, function (this: WebSocket, event: MessageEvent) {
            const id = typeof event.data === 'string' && event.data.includes('"mcp/proposal"') ? /"id":"(bench-proposal-\d+)"/.exec(event.data)?.[1] : undefined;
            if (id) w.__arrived[id] ??= Date.now();
            return handler.call(this, event);
          });
        },
      });
      new PerformanceObserver((list) => {
        for (const entry of list.getEntries()) w.__longTasks.push(entry.duration);
      }).observe({ type: 'longtask', buffered: true });
      // Only added subtrees are searched, so the measuring costs the page little.
      new MutationObserver((records) => {
        const now = Date.now();
        for (const record of records) {
          for (const node of record.addedNodes) {
            if (!(node instanceof HTMLElement)) continue;
            const cards = node.matches('[data-proposal-id]') ? [node] : node.querySelectorAll<HTMLElement>('[data-proposal-id]');
            for (const el of cards) w.__seen[el.dataset.proposalId!] ??= now;
          }
        }
      }).observe(document, { childList: true, subtree: true });
      document.addEventListener('click', (e) => {
        const card = (e.target as HTMLElement).closest<HTMLElement>('[data-proposal-id]');
        if (card) w.__clicks[card.dataset.proposalId!] ??= Date.now();
      }, true);
    });
    await page.goto(`http://127.0.0.1:${port}/spaces/bench-ui#token=${token('human')}`);
    await page.getByText('Live', { exact: true }).waitFor({ timeout: 20_000 });
    // Other devices of the same supervisor (a phone, a laptop), each its own connection receiving everything.
    for (let i = 0; i < OTHER_DEVICES; i++) {
      const device = await (await browser.newContext({ viewport: { width: 390, height: 844 } })).newPage();
      await device.goto(`http://127.0.0.1:${port}/spaces/bench-ui#token=${token('human')}`);
      await device.getByText('Live', { exact: true }).waitFor({ timeout: 20_000 });
    }
    await page.evaluate(() => ((window as unknown as { __longTasks: number[] }).__longTasks.length = 0)); // page load is not the load test

    sockets.forEach((ws, i) => ws.send(JSON.stringify({ id: `bench-thread-${i}`, kind: 'reasoning/start', payload: { message: 'working through the backlog' } })));
    if (process.env.BENCH_UI_TRACE) await browser.startTracing(page, { categories: ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'v8', 'blink'] });
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Performance.enable');
    const metricsBefore = await mainThreadMetrics(cdp);
    const metricsFrom = Date.now();
    const cpuBefore = cpuTimes();
    if (process.env.BENCH_UI_PROFILE) {
      await cdp.send('Profiler.enable');
      await cdp.send('Profiler.start');
    }
    const sentAt = new Map<string, number>();
    let sent = 0;
    let n = 0;
    const started = Date.now();
    // Timers fire late on a busy machine: send what the elapsed time calls for, not a fixed count per tick.
    const ticker = setInterval(() => {
      const due = Math.floor(((Date.now() - started) * RATE) / 1000) - n;
      for (let i = 0; i < due; i++, n++) {
        const agent = n % sockets.length;
        const ws = sockets[agent];
        const kind = n % 3;
        const body =
          kind === 0
            ? { kind: 'chat', payload: { text: `progress update ${n}` } }
            : kind === 1
              ? { kind: 'participant/status', payload: { tokens: 1000 + (n % 7000), max_tokens: 8000, messages_in_context: n % 200, latency_ms: 100 + (n % 300) } }
              : { kind: 'reasoning/thought', context: `bench-thread-${agent}`, payload: { message: `considering option ${n}` } };
        ws.send(JSON.stringify(body));
        sent++;
      }
    }, 10);
    const proposals = setInterval(() => {
      const id = `bench-proposal-${sentAt.size}`;
      sentAt.set(id, Date.now());
      proposer.send(JSON.stringify({ id, kind: 'mcp/proposal', to: ['tools'], payload: { method: 'tools/call', params: { name: 'write_note', arguments: { text: id } } } }));
      sent++;
    }, 1000);

    let approved = 0;
    while (Date.now() - started < SECONDS * 1000) {
      await new Promise((r) => setTimeout(r, 500));
      const candidates = [...sentAt.keys()].filter((id, i) => i % APPROVE_EVERY === 0 && !fulfilledAt.has(id));
      for (const id of candidates.slice(0, 1)) {
        const button = page.locator(`[data-proposal-id="${id}"]`).getByRole('button', { name: 'Approve', exact: true }).first();
        if (await button.isVisible().catch(() => false)) {
          await button.click({ timeout: 2000 }).catch(() => undefined);
          approved++;
        }
      }
    }
    clearInterval(ticker);
    clearInterval(proposals);
    await new Promise((r) => setTimeout(r, 1500));
    const metricsAfter = await mainThreadMetrics(cdp);
    const metricsSeconds = (Date.now() - metricsFrom) / 1000;
    const cpuAfter = cpuTimes();
    if (process.env.BENCH_UI_PROFILE) {
      const { profile } = await cdp.send('Profiler.stop');
      writeFileSync(process.env.BENCH_UI_PROFILE!, JSON.stringify(profile));
      await printHotFunctions(profile);
    }
    if (process.env.BENCH_UI_TRACE) {
      const trace = await browser.stopTracing();
      writeFileSync(process.env.BENCH_UI_TRACE, trace);
      printLongTaskBreakdown((JSON.parse(trace.toString()) as { traceEvents: TraceEvent[] }).traceEvents);
    }

    const result = await page.evaluate(() => {
      const w = window as unknown as { __longTasks: number[]; __seen: Record<string, number>; __clicks: Record<string, number>; __arrived: Record<string, number> };
      const memory = (performance as unknown as { memory?: { usedJSHeapSize: number } }).memory;
      return { longTasks: w.__longTasks, seen: w.__seen, clicks: w.__clicks, arrived: w.__arrived, heap: memory?.usedJSHeapSize ?? NaN, nodes: document.getElementsByTagName('*').length };
    });
    const visible = [...sentAt].filter(([id]) => result.seen[id]).map(([id, t]) => result.seen[id] - t);
    const onWire = Object.entries(result.clicks).filter(([id]) => fulfilledAt.has(id)).map(([id, t]) => fulfilledAt.get(id)! - t);
    const over50 = result.longTasks.filter((d) => d > 50);
    const elapsed = (Date.now() - started) / 1000;
    console.log(`MEW control room under load (${SECONDS} s, ${Math.round(sent / elapsed)} envelopes/s sent, Chromium ${browser.version()})\n`);
    const steal = cpuBefore && cpuAfter ? `, ${(((cpuAfter.steal - cpuBefore.steal) / (cpuAfter.total - cpuBefore.total)) * 100).toFixed(0)} % of CPU time stolen by the host` : '';
    console.log(`machine                        ${availableParallelism()} CPUs${steal}`);
    console.log(`envelopes sent                 ${sent}`);
    console.log(`devices signed in              ${OTHER_DEVICES + 1} (this page measured; the others live on the same two CPUs)`);
    console.log(`long tasks > 50 ms             ${over50.length} (${result.longTasks.filter((d) => d > 100).length} over 100 ms; worst ${Math.round(Math.max(0, ...result.longTasks))} ms)`);
    const busy = (name: string) => `${((((metricsAfter[name] ?? 0) - (metricsBefore[name] ?? 0)) / metricsSeconds) * 100).toFixed(0)} %`;
    const perSecond = (name: string) => (((metricsAfter[name] ?? 0) - (metricsBefore[name] ?? 0)) / metricsSeconds).toFixed(0);
    console.log(`main thread busy               ${busy('TaskDuration')} (script ${busy('ScriptDuration')}, style ${busy('RecalcStyleDuration')}, layout ${busy('LayoutDuration')})`);
    console.log(`main thread CPU time           ${busy('ThreadTime')} (steal-free); ${perSecond('LayoutCount')} layouts/s, ${perSecond('RecalcStyleCount')} style recalcs/s`);
    console.log(`JS heap after the run          ${(result.heap / 1024 / 1024).toFixed(1)} MB (${result.nodes} DOM elements)`);
    console.log(`proposal sent → card visible   p50 ${percentile(visible, 50)} ms, p95 ${percentile(visible, 95)} ms (${visible.length}/${sentAt.size} seen)`);
    const toPage = [...sentAt].filter(([id]) => result.arrived[id] && result.seen[id]).map(([id, t]) => result.arrived[id] - t);
    const toScreen = [...sentAt].filter(([id]) => result.arrived[id] && result.seen[id]).map(([id]) => result.seen[id] - result.arrived[id]);
    const viaGateway = [...sentAt].filter(([id]) => gatewayEchoAt.has(id)).map(([id, t]) => gatewayEchoAt.get(id)! - t);
    console.log(`  (sent → another participant  p50 ${percentile(viaGateway, 50)} ms, p95 ${percentile(viaGateway, 95)} ms: the gateway's share)`);
    console.log(`  of which sent → page script  p50 ${percentile(toPage, 50)} ms, p95 ${percentile(toPage, 95)} ms`);
    console.log(`  and page script → card       p50 ${percentile(toScreen, 50)} ms, p95 ${percentile(toScreen, 95)} ms`);
    console.log(`Approve click → on the wire    p50 ${percentile(onWire, 50)} ms, p95 ${percentile(onWire, 95)} ms (${onWire.length}/${approved} approvals)`);
    for (const ws of [tools, proposer, ...sockets]) ws.close();
  } finally {
    await browser.close();
    server.kill('SIGTERM');
  }
}

await main();
