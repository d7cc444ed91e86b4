import { availableParallelism, loadavg } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect, test, type CDPSession, type JSHandle, type Locator, type Page } from '@playwright/test';
import { MEWParticipant } from '../lib/sdk/mew-participant';
import { type OwnServer, startOwnServer } from './fixtures/own-server';

// Issue #17's scale of the screen: 100 participants in the rail with live gauges, 1 000 pending proposals in the
// queue, 10 000 envelopes in the log, each list scrolled through with the mouse wheel while the page records long
// tasks and frame times. The numbers are printed (and attached), not asserted: they depend on the machine.
//
// The space is a server of its own (same server.ts, own config and data): a thousand pending proposals and ten
// thousand envelopes in the shared e2e space would be replayed into every later journey's page.

const SPACE = 'scale';
const AGENTS = Array.from({ length: 100 }, (_, i) => `agent-${String(i + 1).padStart(3, '0')}`);
const PROPOSALS = 1000;
const CHATS = 10_000;
const TOOL = 'write_note';
/** Whom the agents address their traffic to: configured, never connected. Directed agents then receive none of it. */
const LEAD = 'lead';
const token = (id: string) => `scale-${id}-token-00000000`;

/** Pixels each list is scrolled by per animation frame (one wheel event per frame): a fast, sustained scroll. */
const WHEEL_PX = { rail: 300, queue: 1000, log: 1000 } as const;
/** How long the page is watched doing nothing but take in the gauges' reports. */
const IDLE_MS = 10_000;

interface ScaleWindow {
  __longTasks: { at: number; ms: number }[];
  __recording?: { from: number; frames: number[]; on: boolean };
}

interface Measured {
  seconds: number;
  /** Main-thread task time (s). */
  busy: number;
  frames: number;
  frameP50: number;
  frameP95: number;
  worstFrame: number;
  framesOver50: number;
  longTasks: number;
  worstLongTask: number;
  longTaskMs: number;
}

interface Report extends Measured {
  what: string;
  scroll: string;
}

/** The scale space on a server of its own. */
function startServer(): Promise<OwnServer> {
  const participants: Record<string, unknown> = {
    human: { tokens: [token('human')], capabilities: [{ kind: '*' }] },
    tools: { tokens: [token('tools')], capabilities: [{ kind: ['mcp/response', 'participant/status'] }], routing: 'directed' },
    [LEAD]: { tokens: [token(LEAD)] },
  };
  for (const a of AGENTS) {
    participants[a] = { tokens: [token(a)], capabilities: [{ kind: ['mcp/proposal', 'chat', 'participant/status'] }], routing: 'directed' };
  }
  return startOwnServer('screen-scale', { space: { id: SPACE }, participants, limits: { rate_per_second: 10_000, rate_burst: 10_000 } });
}

async function connect(port: number, id: string): Promise<MEWParticipant> {
  const participant = new MEWParticipant({ gateway: `ws://127.0.0.1:${port}/ws`, space: SPACE, token: token(id), autoDiscovery: false });
  await participant.connect();
  return participant;
}

/** The element that scrolls `list`: its nearest scrollable ancestor, or the page. */
function scrollerOf(list: Locator): Promise<JSHandle<Element>> {
  return list.evaluateHandle((el) => {
    for (let node: Element | null = el; node && node !== document.body; node = node.parentElement) {
      const overflow = getComputedStyle(node).overflowY;
      if ((overflow === 'auto' || overflow === 'scroll') && node.scrollHeight > node.clientHeight) return node;
    }
    return document.scrollingElement!;
  });
}

/** Chromium's cumulative main-thread task time (s): busy time is steadier than counting long tasks. */
async function taskSeconds(cdp: CDPSession): Promise<number> {
  const { metrics } = await cdp.send('Performance.getMetrics');
  return metrics.find((m) => m.name === 'TaskDuration')?.value ?? 0;
}

/** Starts recording frame times (a requestAnimationFrame loop) and main-thread time; `stop` reports them with the long tasks. */
async function record(page: Page, cdp: CDPSession): Promise<{ stop(): Promise<Measured> }> {
  const busyFrom = await taskSeconds(cdp);
  await page.evaluate(() => {
    const w = window as unknown as ScaleWindow;
    const recording = { from: performance.now(), frames: [] as number[], on: true };
    w.__recording = recording;
    const loop = (t: number) => {
      if (!recording.on) return;
      recording.frames.push(t);
      requestAnimationFrame(loop);
    };
    requestAnimationFrame(loop);
  });
  return {
    async stop() {
      const measured = await page.evaluate(() => {
        const w = window as unknown as ScaleWindow;
        const recording = w.__recording!;
        recording.on = false;
        const to = performance.now();
        const gaps = recording.frames
          .slice(1)
          .map((t, i) => t - recording.frames[i])
          .sort((a, b) => a - b);
        const at = (q: number) => gaps[Math.min(gaps.length - 1, Math.floor(q * gaps.length))] ?? 0;
        const tasks = w.__longTasks.filter((t) => t.at >= recording.from && t.at <= to).map((t) => t.ms);
        return {
          seconds: (to - recording.from) / 1000,
          frames: gaps.length,
          frameP50: at(0.5),
          frameP95: at(0.95),
          worstFrame: gaps.at(-1) ?? 0,
          framesOver50: gaps.filter((g) => g > 50).length,
          longTasks: tasks.length,
          worstLongTask: Math.max(0, ...tasks),
          longTaskMs: tasks.reduce((a, b) => a + b, 0),
        };
      });
      return { ...measured, busy: (await taskSeconds(cdp)) - busyFrom };
    },
  };
}

/**
 * Scrolls `list` to its end (or its top, `px < 0`) with one wheel event per animation frame over its middle, and
 * reports the frame intervals, long tasks and main-thread time of that time.
 */
async function scrollThrough(page: Page, cdp: CDPSession, name: string, list: Locator, px: number): Promise<Report> {
  const scroller = await scrollerOf(list);
  await scroller.evaluate((el) => el.scrollIntoView({ block: 'nearest' }));
  // Over the middle of what is visible of the scroll box (of the list itself when the page scrolls it).
  const box = await scroller.evaluate(
    (el, list) => {
      const r = (el === document.scrollingElement ? list! : el).getBoundingClientRect();
      const top = Math.max(r.top, 0);
      const bottom = Math.min(r.bottom, innerHeight);
      return { x: r.left + Math.min(r.width / 2, 120), y: (top + bottom) / 2 };
    },
    await list.elementHandle(),
  );
  await page.mouse.move(box.x, box.y);
  const recording = await record(page, cdp);
  let steps = 0;
  let still = 0;
  let last = -1;
  for (; steps < 3000 && still < 30; steps++) {
    await page.mouse.wheel(0, px);
    // The next frame paces the wheel (one event per frame) and reports where the scroll got to.
    const { top, done } = await scroller.evaluate(
      (el, down) =>
        new Promise<{ top: number; done: boolean }>((resolve) =>
          requestAnimationFrame(() => resolve({ top: el.scrollTop, done: down ? el.scrollTop + el.clientHeight >= el.scrollHeight - 2 : el.scrollTop <= 0 })),
        ),
      px > 0,
    );
    if (done) break;
    still = top === last ? still + 1 : 0;
    last = top;
  }
  const measured = await recording.stop();
  await scroller.dispose();
  return { what: name, scroll: `${steps} × ${Math.abs(px)} px`, ...measured };
}

function printReports(reports: Report[]): string {
  const round = (n: number) => Math.round(n * 10) / 10;
  const lines = [
    '| what | wheel steps | time | main thread busy | frame p50 / p95 / worst | frames > 50 ms | long tasks (worst, total) |',
    '|---|---:|---:|---:|---|---:|---|',
    ...reports.map(
      (r) =>
        `| ${r.what} | ${r.scroll} | ${round(r.seconds)} s | ${Math.round((100 * r.busy) / r.seconds)} % | ${round(r.frameP50)} / ${round(r.frameP95)} / ${round(r.worstFrame)} ms | ${r.framesOver50} | ${r.longTasks} (${round(r.worstLongTask)} ms, ${round(r.longTaskMs)} ms) |`,
    ),
  ];
  return lines.join('\n');
}

let server: OwnServer | undefined;
const connected: MEWParticipant[] = [];

test.afterAll(async () => {
  for (const p of connected) p.disconnect();
  await server?.stop();
});

test('100 participants with live gauges, 1 000 pending proposals and 10 000 envelopes: each list scrolls to its end', async ({ page }, testInfo) => {
  test.setTimeout(5 * 60_000);
  server = await startServer();
  const { port } = server;

  const tools = await connect(port, 'tools');
  connected.push(tools);
  tools.tools.register({ name: TOOL, security: { risk_level: 'moderate' }, execute: ({ path }) => `Wrote ${String(path)}` });

  await page.setViewportSize({ width: 1280, height: 900 });
  await page.addInitScript(() => {
    const w = window as unknown as ScaleWindow;
    w.__longTasks = [];
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) w.__longTasks.push({ at: entry.startTime, ms: entry.duration });
    }).observe({ type: 'longtask', buffered: true });
  });
  await page.goto(`http://127.0.0.1:${port}/spaces/${SPACE}#token=${token('human')}`);
  await expect(page.getByTestId('connection-status')).toHaveText('Live', { timeout: 20_000 });

  const rail = page.getByRole('region', { name: /^Participants/ });
  const railList = rail.getByRole('list', { name: 'Participants' });
  const queue = page.getByRole('region', { name: 'Proposals' });
  const log = page.getByRole('region', { name: 'Envelope log' });
  const logList = log.getByRole('list', { name: 'Envelopes' });

  const agents = await test.step('100 agents join and report their context', async () => {
    const agents = await Promise.all(AGENTS.map((a) => connect(port, a)));
    connected.push(...agents);
    agents.forEach((a, i) => {
      a.client.send({
        kind: 'participant/status',
        to: [LEAD],
        payload: { tokens: 1000 + i * 80, max_tokens: 10_000, messages_in_context: 20 + i, status: 'working' },
      });
    });
    // Me, the tools and the 100 agents.
    await expect(rail.getByRole('heading', { name: /Participants/ })).toContainText('102 online');
    await expect(rail.getByRole('meter', { name: 'Context usage of agent-001' })).toHaveAttribute('aria-valuenow', '10');
    return agents;
  });

  // From here on every agent reports once a second: the gauges stay live while the lists are scrolled.
  let round = 0;
  const quiet = new Set<MEWParticipant>(); // agents whose own last report a step checks
  const statuses = setInterval(() => {
    round++;
    agents.forEach((a, i) => {
      if (!quiet.has(a))
        a.client.send({
          kind: 'participant/status',
          to: [LEAD],
          payload: { tokens: 1000 + ((i * 80 + round * 250) % 8000), max_tokens: 10_000, messages_in_context: 20 + i, status: 'working' },
        });
    });
  }, 1000);

  try {
    await test.step('1 000 proposals wait in the queue', async () => {
      const propose = (n: number) =>
        agents[n % agents.length].client.send({
          kind: 'mcp/proposal',
          to: ['tools'],
          payload: { method: 'tools/call', params: { name: TOOL, arguments: { path: `notes/${n}.md`, text: `note ${n}` } } },
        });
      for (let n = 1; n < PROPOSALS; n++) {
        propose(n);
        if (n % 100 === 0) await sleep(100); // 1 000 a second
      }
      await expect(queue.getByText(`${PROPOSALS - 1} pending`)).toBeVisible({ timeout: 60_000 });
      propose(PROPOSALS); // the last in the queue (oldest first)
      await expect(queue.getByText(`${PROPOSALS} pending`)).toBeVisible();
    });

    await test.step('10 000 more envelopes fill the log to its cap', async () => {
      for (let n = 1; n <= CHATS; n++) {
        agents[n % agents.length].client.send({ kind: 'chat', to: [LEAD], payload: { text: `progress ${n}` } });
        if (n % 100 === 0) await sleep(50); // 2 000 a second
      }
      await expect(log.getByText('10000 shown')).toBeVisible({ timeout: 60_000 });
      await expect(log.getByText(/older envelopes evicted \(cap 10000\)/)).toBeVisible();
    });

    const reports: Report[] = [];
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Performance.enable');
    const load = [loadavg()[0]];

    await test.step('the page keeps up with 100 status reports a second while nobody scrolls', async () => {
      const recording = await record(page, cdp);
      await sleep(IDLE_MS);
      reports.push({ what: 'nothing, 100 status reports/s', scroll: '–', ...(await recording.stop()) });
    });

    await test.step('the rail scrolls to its last participant, whose gauge is live', async () => {
      reports.push(await scrollThrough(page, cdp, 'participants rail (102)', railList, WHEEL_PX.rail));
      await expect(rail.getByRole('article', { name: 'tools' })).toBeInViewport();
      const last = rail.getByRole('article', { name: AGENTS.at(-1) });
      await expect(last).toBeInViewport();
      quiet.add(agents.at(-1)!);
      agents.at(-1)!.client.send({
        kind: 'participant/status',
        to: [LEAD],
        payload: { tokens: 9_500, max_tokens: 10_000, messages_in_context: 180, status: 'almost full' },
      });
      await expect(last.getByRole('meter', { name: `Context usage of ${AGENTS.at(-1)}` })).toHaveAttribute('aria-valuenow', '95');
      await expect(last.getByText('almost full')).toBeVisible();
    });

    await test.step('the queue scrolls to its last pending proposal', async () => {
      reports.push(await scrollThrough(page, cdp, `proposal queue (${PROPOSALS} pending)`, queue.getByRole('article').first(), WHEEL_PX.queue));
      await expect(queue.getByRole('article', { name: TOOL }).filter({ hasText: `notes/${PROPOSALS}.md` })).toBeInViewport();
    });

    await test.step('the log scrolls back to its oldest entry and down again to the latest', async () => {
      reports.push(await scrollThrough(page, cdp, 'envelope log (10 000), up', logList, -WHEEL_PX.log));
      await expect(logList.getByRole('listitem').first()).toHaveAttribute('aria-posinset', '1');
      clearInterval(statuses);
      agents[0].client.send({ kind: 'chat', to: [LEAD], payload: { text: 'the latest envelope' } });
      reports.push(await scrollThrough(page, cdp, 'envelope log (10 000), down', logList, WHEEL_PX.log));
      await expect(logList.getByText('the latest envelope')).toBeInViewport();
    });

    load.push(loadavg()[0]);
    const host = `host load average ${load.map((l) => l.toFixed(1)).join(' → ')} on ${availableParallelism()} CPUs`;
    console.log(`\nThe control room at the issue's scale (one wheel event per frame; ${host}):\n${printReports(reports)}\n`);
    await testInfo.attach('scale-measurements', { body: JSON.stringify({ host, reports }, null, 2), contentType: 'application/json' });

    await test.step('the rail is a list of all 102 that mounts the cards near the view, and the focused one', async () => {
      const items = railList.getByRole('listitem');
      await expect(items.first()).toHaveAttribute('aria-setsize', '102');
      const mounted = await items.count();
      console.log(`Participant cards in the page: ${mounted} of 102`);
      expect(mounted).toBeLessThan(102);
      // Focus stays on a card's control when the card is scrolled far out of view, and Tab goes on from there.
      const controls = rail.getByRole('button', { name: `Controls for ${AGENTS.at(-1)}` });
      await controls.focus();
      await rail.getByRole('article', { name: AGENTS.at(-2) }).hover();
      for (let i = 0; i < 20; i++) await page.mouse.wheel(0, -2000);
      await expect(rail.getByRole('article', { name: AGENTS[0] })).toBeInViewport();
      await expect(controls).toBeFocused();
      await page.keyboard.press('Shift+Tab');
      await expect(rail.getByRole('button', { name: `Capabilities of ${AGENTS.at(-1)}` })).toBeFocused();
    });
  } finally {
    clearInterval(statuses);
  }
});
