/**
 * `npm run bench:ui`: the control room under load. Starts the production server on a bench space, opens the
 * dashboard in Chromium, drives 500 envelopes/s for 30 s from 50 scripted agents (stream frames, reasoning
 * thoughts, statuses and chat: the mix is in bench-ui-load.ts) and a proposal a second from another participant,
 * clicks Approve on some proposals and presses a key every half second, then prints: main-thread long tasks
 * (> 50 ms: count, worst), JS heap after the run, proposal send → card visible, Approve click → fulfilling envelope
 * received through the gateway, and input latency (a key press to the next paint). Numbers, not assertions.
 * Options: BENCH_UI_SECONDS, BENCH_UI_RATE, BENCH_UI_AGENTS, BENCH_UI_RATES=500,2000,… (each rate in turn, with a
 * fresh server and browser so no backlog carries over, then one table row per rate), BENCH_UI_DEVICES (how many
 * pages are signed in as the supervisor at once; default 1, the measured one), and, with a single rate,
 * BENCH_UI_PROFILE=<file.cpuprofile> to record the page's main-thread CPU profile during the load (open it in
 * Chrome DevTools) and print the functions with the most self time, and BENCH_UI_TRACE=<file.json> to record a
 * Chromium trace (open it in DevTools' Performance panel) and print where the long tasks' time went (script,
 * style, layout, paint, GC).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { chromium, type CDPSession } from '@playwright/test';
import { SourceMapConsumer } from 'source-map-js';
import { CHROMIUM_LAUNCH_OPTIONS } from '../e2e/fixtures/chromium';
import { startOwnServer } from '../e2e/fixtures/own-server';
import { AGENT_LEAD, connect, PAGE_PARTICIPANT, startLoad, token } from './bench-ui-load';
import { buildIfStale } from './build-if-stale.mjs';

const SECONDS = Number(process.env.BENCH_UI_SECONDS ?? 30);
const RATES = (process.env.BENCH_UI_RATES ?? process.env.BENCH_UI_RATE ?? '500').split(',').map(Number);
/** Other devices signed in as the same supervisor, live during the run (the measured page is one more). */
const OTHER_DEVICES = Number(process.env.BENCH_UI_DEVICES ?? 1) - 1;
/** The issue's busy space: fifty agents streaming their reasoning with telemetry and chat. */
const AGENTS = Number(process.env.BENCH_UI_AGENTS ?? 50);
const APPROVE_EVERY = 3; // click Approve on every third proposal
const PROPOSAL_EVERY_MS = 1000;
/** The queue's next-proposal key: it changes the selection (a re-render) and nothing else. */
const INPUT_KEY = 'j';
const INPUT_EVERY_MS = 500;
/** Time for the last proposals and approvals to land before the numbers are read. */
const SETTLE_MS = 1500;
/** With BENCH_UI_RATES the runs end with one table row per rate. */
const RATE_TABLE = process.env.BENCH_UI_RATES !== undefined;
/** A profile or a trace covers one run: with several rates neither is recorded. */
const PROFILE = RATES.length === 1 ? process.env.BENCH_UI_PROFILE : undefined;
const TRACE = RATES.length === 1 ? process.env.BENCH_UI_TRACE : undefined;

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] : NaN;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number } }[];
  samples?: number[];
  timeDeltas?: number[];
}

/** Source maps of the page's scripts, when the build has them (NEXT_BROWSER_SOURCE_MAPS=1 next build). */
async function loadSourceMaps(urls: string[]): Promise<Map<string, SourceMapConsumer>> {
  const maps = new Map<string, SourceMapConsumer>();
  for (const url of new Set(urls.filter((u) => u.startsWith('http')))) {
    const script = await fetch(url).then(
      (r) => (r.ok ? r.text() : ''),
      () => '',
    );
    const mapUrl = /\/\/# sourceMappingURL=(\S+)\s*$/.exec(script)?.[1];
    const response = mapUrl && (await fetch(new URL(mapUrl, url)).catch(() => undefined));
    if (response && response.ok) maps.set(url, new SourceMapConsumer(await response.json()));
  }
  return maps;
}

/** The functions with the most self time in a CPU profile, and the source files they come from, as short tables. */
async function printHotFunctions(profile: CpuProfile): Promise<void> {
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
  const mainThreads = new Set(
    events.filter((e) => e.ph === 'M' && e.name === 'thread_name' && e.args?.name === 'CrRendererMain').map((e) => `${e.pid}:${e.tid}`),
  );
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

/** What the init script records in the page; read back after the run. */
interface BenchWindow {
  __longTasks: number[];
  __seen: Record<string, number>;
  __clicks: Record<string, number>;
  __arrived: Record<string, number>;
  __inputLatency: number[];
  __sockets: number;
}

/** Columns of the several-rates table (markdown, as docs/benchmarks.md shows it). */
const TABLE_COLUMNS = [
  'rate sent (env/s)',
  'steal',
  'long tasks > 50 / > 100 ms (worst)',
  'main thread busy',
  'proposal sent → card visible p50 / p95',
  'of which sent → page script p95',
  'Approve click → on the wire p95',
  'input latency p50 / p95',
  'JS heap after',
];

/** One run at `rate` envelopes/s on a fresh server and browser: prints the detailed results, returns the table row. */
async function runRate(rate: number): Promise<string[]> {
  const agents = Array.from({ length: AGENTS }, (_, i) => `agent${i + 1}`);
  // Everyone but the page is in directed mode: only the page receives the whole load (see AGENT_LEAD).
  const participants: Record<string, unknown> = {
    [PAGE_PARTICIPANT]: { tokens: [token(PAGE_PARTICIPANT)], capabilities: [{ kind: '*' }] },
    tools: { tokens: [token('tools')], capabilities: [{ kind: ['mcp/response', 'chat', 'participant/status'] }], routing: 'directed' },
    proposer: { tokens: [token('proposer')], capabilities: [{ kind: ['mcp/proposal', 'chat'] }], routing: 'directed' },
    [AGENT_LEAD]: { tokens: [token(AGENT_LEAD)] },
  };
  for (const a of agents) {
    participants[a] = { tokens: [token(a)], capabilities: [{ kind: ['chat', 'participant/status', 'reasoning/*', 'stream/request'] }], routing: 'directed' };
  }
  const { port, stop } = await startOwnServer('bench-ui', { space: { id: 'bench-ui' }, participants, limits: { rate_per_second: 10_000, rate_burst: 10_000 } });
  const browser = await chromium.launch({ ...CHROMIUM_LAUNCH_OPTIONS, args: [...CHROMIUM_LAUNCH_OPTIONS.args, '--enable-precise-memory-info'] });
  let load: ReturnType<typeof startLoad> | undefined;
  try {
    const url = `ws://127.0.0.1:${port}/ws?space=bench-ui`;
    const fulfilledAt = new Map<string, number>();
    const gatewayEchoAt = new Map<string, number>();
    const tools = await connect(url, 'tools', (e) => {
      if (e.kind === 'mcp/proposal') gatewayEchoAt.set(e.id, Date.now());
      if (e.kind !== 'mcp/request' || !e.to?.includes('tools')) return;
      for (const id of e.correlation_id ?? []) fulfilledAt.set(id, Date.now());
      tools.send(
        JSON.stringify({
          kind: 'mcp/response',
          to: [e.from],
          correlation_id: [e.id],
          payload: { jsonrpc: '2.0', id: e.payload.id, result: { content: [{ type: 'text', text: 'ok' }] } },
        }),
      );
    });
    const proposer = await connect(url, 'proposer');

    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.addInitScript((inputKey) => {
      const w = window as unknown as BenchWindow;
      w.__longTasks = [];
      w.__seen = {};
      w.__clicks = {};
      w.__arrived = {};
      w.__inputLatency = [];
      w.__sockets = 0;
      // When each proposal's frame reaches the page's script (before the SDK parses it): splits the visible
      // latency into getting to the page (network and the page's task queue) and onto the screen.
      const onmessage = Object.getOwnPropertyDescriptor(WebSocket.prototype, 'onmessage')!;
      Object.defineProperty(WebSocket.prototype, 'onmessage', {
        get() {
          return onmessage.get!.call(this);
        },
        set(handler: (event: MessageEvent) => void) {
          w.__sockets++;
          onmessage.set!.call(this, function (this: WebSocket, event: MessageEvent) {
            const id =
              typeof event.data === 'string' && event.data.includes('"mcp/proposal"') ? /"id":"(bench-proposal-\d+)"/.exec(event.data)?.[1] : undefined;
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
      document.addEventListener(
        'click',
        (e) => {
          const card = (e.target as HTMLElement).closest<HTMLElement>('[data-proposal-id]');
          if (card) w.__clicks[card.dataset.proposalId!] ??= Date.now();
        },
        true,
      );
      // Input latency: from the key event's time (when the browser received the key, so waiting for a busy main
      // thread counts) to a task posted from the next animation frame, which runs once that frame is painted; the
      // queue's own update (a discrete React render) lands before that frame. Not the Event Timing API: it reports
      // only events of 16 ms or more, leaving out the fast ones and biasing the median.
      addEventListener(
        'keydown',
        (e) => {
          if (e.key !== inputKey) return;
          requestAnimationFrame(() => {
            const painted = new MessageChannel();
            painted.port1.onmessage = () => w.__inputLatency.push(performance.now() - e.timeStamp);
            painted.port2.postMessage(null);
          });
        },
        true,
      );
    }, INPUT_KEY);
    await page.goto(`http://127.0.0.1:${port}/spaces/bench-ui#token=${token(PAGE_PARTICIPANT)}`);
    await page.getByText('Live', { exact: true }).waitFor({ timeout: 20_000 });
    // Other devices of the same supervisor (a phone, a laptop), each its own connection receiving everything.
    for (let i = 0; i < OTHER_DEVICES; i++) {
      const device = await (await browser.newContext({ viewport: { width: 390, height: 844 } })).newPage();
      await device.goto(`http://127.0.0.1:${port}/spaces/bench-ui#token=${token(PAGE_PARTICIPANT)}`);
      await device.getByText('Live', { exact: true }).waitFor({ timeout: 20_000 });
    }
    await page.evaluate(() => ((window as unknown as BenchWindow).__longTasks.length = 0)); // page load is not the load test

    load = startLoad({ url, agents, rate });
    await load.ready; // agents connected, streams open, reasoning started
    if (TRACE) await browser.startTracing(page, { categories: ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'v8', 'blink'] });
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Performance.enable');
    const metricsBefore = await mainThreadMetrics(cdp);
    const metricsFrom = Date.now();
    const cpuBefore = cpuTimes();
    if (PROFILE) {
      await cdp.send('Profiler.enable');
      await cdp.send('Profiler.start');
    }
    const sentAt = new Map<string, number>();
    const started = Date.now();
    load.start();
    const proposals = setInterval(() => {
      const id = `bench-proposal-${sentAt.size}`;
      sentAt.set(id, Date.now());
      proposer.send(
        JSON.stringify({ id, kind: 'mcp/proposal', to: ['tools'], payload: { method: 'tools/call', params: { name: 'write_note', arguments: { text: id } } } }),
      );
    }, PROPOSAL_EVERY_MS);
    const running = () => Date.now() - started < SECONDS * 1000;
    const pressing = (async () => {
      while (running()) {
        await sleep(INPUT_EVERY_MS);
        await page.keyboard.press(INPUT_KEY);
      }
    })();

    let approved = 0;
    while (running()) {
      await sleep(500);
      const candidates = [...sentAt.keys()].filter((id, i) => i % APPROVE_EVERY === 0 && !fulfilledAt.has(id));
      for (const id of candidates.slice(0, 1)) {
        const button = page.locator(`[data-proposal-id="${id}"]`).getByRole('button', { name: 'Approve', exact: true }).first();
        if (await button.isVisible().catch(() => false)) {
          await button.click({ timeout: 2000 }).catch(() => undefined);
          approved++;
        }
      }
    }
    clearInterval(proposals);
    const sent = (await load.stop()) + sentAt.size;
    const elapsed = (Date.now() - started) / 1000;
    await pressing;
    await sleep(SETTLE_MS);
    const metricsAfter = await mainThreadMetrics(cdp);
    const metricsSeconds = (Date.now() - metricsFrom) / 1000;
    const cpuAfter = cpuTimes();
    if (PROFILE) {
      const { profile } = await cdp.send('Profiler.stop');
      writeFileSync(PROFILE, JSON.stringify(profile));
      await printHotFunctions(profile);
    }
    if (TRACE) {
      const trace = await browser.stopTracing();
      writeFileSync(TRACE, trace);
      printLongTaskBreakdown((JSON.parse(trace.toString()) as { traceEvents: TraceEvent[] }).traceEvents);
    }

    const result = await page.evaluate(() => {
      const w = window as unknown as BenchWindow;
      const memory = (performance as unknown as { memory?: { usedJSHeapSize: number } }).memory;
      return { ...w, heap: memory?.usedJSHeapSize ?? NaN, nodes: document.getElementsByTagName('*').length };
    });
    const visible = [...sentAt].filter(([id]) => result.__seen[id]).map(([id, t]) => result.__seen[id] - t);
    const onWire = Object.entries(result.__clicks)
      .filter(([id]) => fulfilledAt.has(id))
      .map(([id, t]) => fulfilledAt.get(id)! - t);
    const longTasks = result.__longTasks;
    const over50 = longTasks.filter((d) => d > 50);
    const over100 = longTasks.filter((d) => d > 100);
    const worst = Math.round(Math.max(0, ...longTasks));
    const input = result.__inputLatency;
    const ratePerSecond = Math.round(sent / elapsed);
    console.log(
      `MEW control room under load (${SECONDS} s, ${ratePerSecond} envelopes/s sent of ${rate} asked, ${AGENTS} agents, Chromium ${browser.version()})\n`,
    );
    const stealPercent = cpuBefore && cpuAfter ? (((cpuAfter.steal - cpuBefore.steal) / (cpuAfter.total - cpuBefore.total)) * 100).toFixed(0) : '?';
    console.log(`machine                        ${availableParallelism()} CPUs, ${stealPercent} % of CPU time stolen by the host`);
    console.log(`envelopes sent                 ${sent}`);
    console.log(`devices signed in              ${OTHER_DEVICES + 1} (this page measured; the others live on the same two CPUs)`);
    if (result.__sockets > 1) console.log(`page connections               ${result.__sockets}: the page lost its connection and reconnected`);
    console.log(`long tasks > 50 ms             ${over50.length} (${over100.length} over 100 ms; worst ${worst} ms)`);
    const busy = (name: string) => `${((((metricsAfter[name] ?? 0) - (metricsBefore[name] ?? 0)) / metricsSeconds) * 100).toFixed(0)} %`;
    const perSecond = (name: string) => (((metricsAfter[name] ?? 0) - (metricsBefore[name] ?? 0)) / metricsSeconds).toFixed(0);
    console.log(
      `main thread busy               ${busy('TaskDuration')} (script ${busy('ScriptDuration')}, style ${busy('RecalcStyleDuration')}, layout ${busy('LayoutDuration')})`,
    );
    console.log(
      `main thread CPU time           ${busy('ThreadTime')} (steal-free); ${perSecond('LayoutCount')} layouts/s, ${perSecond('RecalcStyleCount')} style recalcs/s`,
    );
    const heapMb = (result.heap / 1024 / 1024).toFixed(1);
    console.log(`JS heap after the run          ${heapMb} MB (${result.nodes} DOM elements)`);
    console.log(`proposal sent → card visible   p50 ${percentile(visible, 50)} ms, p95 ${percentile(visible, 95)} ms (${visible.length}/${sentAt.size} seen)`);
    const reached = [...sentAt].filter(([id]) => result.__arrived[id] && result.__seen[id]);
    const toPage = reached.map(([id, t]) => result.__arrived[id] - t);
    const toScreen = reached.map(([id]) => result.__seen[id] - result.__arrived[id]);
    const viaGateway = [...sentAt].filter(([id]) => gatewayEchoAt.has(id)).map(([id, t]) => gatewayEchoAt.get(id)! - t);
    console.log(`  (sent → another participant  p50 ${percentile(viaGateway, 50)} ms, p95 ${percentile(viaGateway, 95)} ms: the gateway's share)`);
    console.log(`  of which sent → page script  p50 ${percentile(toPage, 50)} ms, p95 ${percentile(toPage, 95)} ms`);
    console.log(`  and page script → card       p50 ${percentile(toScreen, 50)} ms, p95 ${percentile(toScreen, 95)} ms`);
    console.log(`Approve click → on the wire    p50 ${percentile(onWire, 50)} ms, p95 ${percentile(onWire, 95)} ms (${onWire.length}/${approved} approvals)`);
    const ms = (p: number) => percentile(input, p).toFixed(0);
    console.log(`input latency (key → paint)    p50 ${ms(50)} ms, p95 ${ms(95)} ms (${input.length} key presses)\n`);
    for (const ws of [tools, proposer]) ws.close();
    return [
      String(ratePerSecond),
      `${stealPercent} %`,
      `${over50.length} / ${over100.length}${over50.length ? ` (${worst} ms)` : ''}`,
      busy('TaskDuration'),
      `${percentile(visible, 50)} / ${percentile(visible, 95)} ms (${visible.length}/${sentAt.size})`,
      `${percentile(toPage, 95)} ms`,
      `${percentile(onWire, 95)} ms (${onWire.length})`,
      `${ms(50)} / ${ms(95)} ms`,
      `${heapMb} MB`,
    ];
  } finally {
    load?.kill();
    await browser.close();
    await stop();
  }
}

async function main() {
  if (!buildIfStale()) process.exit(1);
  const rows: string[][] = [];
  for (const rate of RATES) rows.push(await runRate(rate));
  if (!RATE_TABLE) return;
  console.log(`| ${TABLE_COLUMNS.join(' | ')} |\n|${TABLE_COLUMNS.map(() => '---').join('|')}|`);
  for (const row of rows) console.log(`| ${row.join(' | ')} |`);
}

await main();
