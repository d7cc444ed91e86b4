import type { ReduceContext } from './reduce-context';
import { writable } from './collection-utils';
import { GAUGE_AMBER_RATIO, GAUGE_RED_RATIO } from './store-defaults';
import { num, payloadOf, type JsonObject, type StoreEnvelope } from './store-envelope';

/** One `participant/status`, reduced to its numeric fields. */
export interface TelemetrySample {
  /** The status envelope. */
  id: string;
  at: number;
  /** Every top-level finite numeric field (`tokens`, `max_tokens`, `messages_in_context`, `latency_ms`, …). */
  values: Readonly<Record<string, number>>;
}

/** Context usage level: green below 70 %, amber below 90 %, red at or above. */
export type GaugeLevel = 'green' | 'amber' | 'red';

/** How full a participant's context window is (`tokens / max_tokens`). */
export interface ContextGauge {
  tokens: number;
  maxTokens: number;
  ratio: number;
  level: GaugeLevel;
}

/** A participant's telemetry: a bounded, time-ordered series plus the latest snapshot. */
export interface ParticipantTelemetry {
  participant: string;
  /** Oldest first, at most `telemetryCap` samples. */
  samples: readonly TelemetrySample[];
  /** Every numeric field seen so far, in first-seen order (chart series). */
  fields: readonly string[];
  /** The latest status (by `ts`) with its whole payload, strings included (e.g. `status: "compacting"`). */
  latest: { id: string; at: number; payload: JsonObject };
  /** From the latest status, when it has `tokens` and a positive `max_tokens`. */
  gauge?: ContextGauge;
  /** Latest status older than `staleAfterMs` at the last tick or ingest. */
  stale: boolean;
}

/** Telemetry by participant id. */
export interface TelemetryState {
  byParticipant: ReadonlyMap<string, ParticipantTelemetry>;
}

/** A fresh telemetry slice. */
export function initialTelemetry(): TelemetryState {
  return { byParticipant: new Map() };
}

/** The gauge level of a usage ratio. */
export function gaugeLevel(ratio: number): GaugeLevel {
  if (ratio < GAUGE_AMBER_RATIO) return 'green';
  if (ratio < GAUGE_RED_RATIO) return 'amber';
  return 'red';
}

/** The context gauge of a status payload, or undefined without usable `tokens` / `max_tokens`. */
export function contextGauge(payload: JsonObject): ContextGauge | undefined {
  const tokens = num(payload.tokens);
  const maxTokens = num(payload.max_tokens);
  if (tokens === undefined || maxTokens === undefined || maxTokens <= 0) return undefined;
  const ratio = tokens / maxTokens;
  return { tokens, maxTokens, ratio, level: gaugeLevel(ratio) };
}

function numericFields(payload: JsonObject): Record<string, number> {
  const values: Record<string, number> = {};
  for (const [key, value] of Object.entries(payload)) {
    const n = num(value);
    if (n !== undefined) values[key] = n;
  }
  return values;
}

/** Appends a `participant/status` to its sender's series (in time order, even when replayed out of order). */
export function reduceTelemetry(state: TelemetryState, envelope: StoreEnvelope, ctx: ReduceContext): TelemetryState {
  if (envelope.kind !== 'participant/status') return state;
  const payload = payloadOf(envelope);
  const sample: TelemetrySample = { id: envelope.id, at: ctx.at, values: numericFields(payload) };
  const current = state.byParticipant.get(envelope.from);
  const cap = ctx.config.telemetryCap;

  let samples: TelemetrySample[];
  if (!current) samples = [sample];
  else {
    samples = current.samples.slice();
    // Usually appended; a catch-up may replay older statuses, which go in their place.
    let i = samples.length;
    while (i > 0 && samples[i - 1].at > sample.at) i--;
    samples.splice(i, 0, sample);
    if (samples.length > cap) samples = samples.slice(samples.length - cap);
  }

  const fields = current ? [...current.fields] : [];
  for (const key of Object.keys(sample.values)) if (!fields.includes(key)) fields.push(key);

  const isLatest = !current || sample.at >= current.latest.at;
  const latest = isLatest ? { id: envelope.id, at: ctx.at, payload } : current.latest;
  const gauge = isLatest ? contextGauge(payload) : current.gauge;
  writable(state.byParticipant).set(envelope.from, {
    participant: envelope.from,
    samples,
    fields: current && fields.length === current.fields.length ? current.fields : fields,
    latest,
    gauge,
    stale: ctx.now - latest.at > ctx.config.staleAfterMs,
  });
  return { byParticipant: state.byParticipant };
}

/** Recomputes staleness at `now`; same state when no flag changed. */
export function tickTelemetry(state: TelemetryState, now: number, staleAfterMs: number): TelemetryState {
  let changed = false;
  for (const t of state.byParticipant.values()) {
    const stale = now - t.latest.at > staleAfterMs;
    if (stale !== t.stale) {
      writable(state.byParticipant).set(t.participant, { ...t, stale });
      changed = true;
    }
  }
  return changed ? { byParticipant: state.byParticipant } : state;
}

/** One field as `{at, value}` points (samples lacking the field are skipped). */
export function seriesOf(telemetry: ParticipantTelemetry, field: string): { at: number; value: number }[] {
  const out: { at: number; value: number }[] = [];
  for (const s of telemetry.samples) {
    const value = s.values[field];
    if (value !== undefined) out.push({ at: s.at, value });
  }
  return out;
}

/** Flat rows `{at, tokens, latency_ms, …}`, one per report, for charts. */
export function chartRows(telemetry: ParticipantTelemetry): ({ at: number } & Record<string, number>)[] {
  return telemetry.samples.map((s) => ({ ...s.values, at: s.at }));
}
