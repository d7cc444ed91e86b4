import type { Attributes, Counter, Histogram, Meter, ObservableResult } from '@opentelemetry/api';
import { isKind } from '../protocol';
import type { ReportedUsage } from './chain-tracer';
import {
  ERROR_TYPE,
  MEW_DECIDER_KIND,
  MEW_DECISION,
  MEW_KIND,
  MEW_PARTICIPANT,
  MEW_SPACE,
  MEW_TOKEN_TYPE,
  METRICS,
  type DeciderKind,
  type Decision,
} from './telemetry-attributes';

/** Time-to-decide buckets (seconds): a rule's milliseconds to a person's hours. */
const DECISION_SECONDS = [0.005, 0.025, 0.1, 0.5, 1, 5, 15, 60, 300, 900, 3600, 4 * 3600];

/**
 * What one space counts on its message path: plain numbers in maps, read by the metric callbacks when the reader
 * collects, so routing an envelope costs a map update rather than an instrument call.
 */
export class SpaceCounts {
  /** Routed envelopes, by kind. */
  readonly routed = new Map<string, number>();
  /** Refused frames, by `kind error` (the kind may be absent: a frame that was not JSON). */
  readonly refused = new Map<string, { kind?: string; error: string; count: number }>();
  /** Deliveries of routed envelopes to connections. */
  deliveries = 0;

  countRouted(kind: string): void {
    this.routed.set(kind, (this.routed.get(kind) ?? 0) + 1);
  }

  /** A kind outside the protocol's is counted as `other`: what a client names must not multiply the series. */
  countRefused(named: string | undefined, error: string): void {
    const kind = named === undefined || isKind(named) ? named : 'other';
    const key = `${kind ?? ''} ${error}`;
    const entry = this.refused.get(key);
    if (entry) entry.count++;
    else this.refused.set(key, { ...(kind !== undefined && { kind }), error, count: 1 });
  }
}

/** What a space shows its gauges and counters. */
export interface SpaceSource {
  space: string;
  counts: SpaceCounts;
  pending(): number;
  online(): number;
  connections(): number;
  usage(): ReadonlyMap<string, ReportedUsage>;
}

/**
 * The server's instruments: pending proposals (gauge), decisions by outcome and decider kind (counter), time to
 * decide (histogram), envelopes routed and refused (counters), deliveries, connections, participants online and
 * tokens reported per participant. Spaces register what they observe (`watch`).
 */
export class TelemetryMetrics {
  private readonly decisions: Counter;
  private readonly decisionSeconds: Histogram;
  private readonly sources = new Set<SpaceSource>();

  constructor(meter: Meter) {
    this.decisions = meter.createCounter(METRICS.decisions, { description: 'Proposals decided, by outcome and kind of decider', unit: '{decision}' });
    this.decisionSeconds = meter.createHistogram(METRICS.decisionDuration, {
      description: 'Time from a proposal to its decision',
      unit: 's',
      advice: { explicitBucketBoundaries: DECISION_SECONDS },
    });
    const each = (read: (source: SpaceSource, result: ObservableResult) => void) => (result: ObservableResult) => {
      for (const source of this.sources) read(source, result);
    };
    meter
      .createObservableGauge(METRICS.pending, { description: 'Proposals waiting for a decision', unit: '{proposal}' })
      .addCallback(each((source, result) => result.observe(source.pending(), { [MEW_SPACE]: source.space })));
    meter
      .createObservableGauge(METRICS.online, { description: 'Participants connected', unit: '{participant}' })
      .addCallback(each((source, result) => result.observe(source.online(), { [MEW_SPACE]: source.space })));
    meter
      .createObservableGauge(METRICS.connections, { description: 'Open connections (a participant may have several)', unit: '{connection}' })
      .addCallback(each((source, result) => result.observe(source.connections(), { [MEW_SPACE]: source.space })));
    meter.createObservableGauge(METRICS.tokens, { description: "Tokens in participants' latest participant/status", unit: '{token}' }).addCallback(
      each((source, result) => {
        for (const [participant, usage] of source.usage()) {
          for (const type of ['total', 'context', 'input', 'output'] as const) {
            const value = usage[type];
            if (value !== undefined) result.observe(value, { [MEW_SPACE]: source.space, [MEW_PARTICIPANT]: participant, [MEW_TOKEN_TYPE]: type });
          }
        }
      }),
    );
    meter.createObservableCounter(METRICS.routed, { description: 'Envelopes routed, by kind', unit: '{envelope}' }).addCallback(
      each((source, result) => {
        for (const [kind, count] of source.counts.routed) result.observe(count, { [MEW_SPACE]: source.space, [MEW_KIND]: kind });
      }),
    );
    meter.createObservableCounter(METRICS.refused, { description: 'Frames refused, by kind and error code', unit: '{envelope}' }).addCallback(
      each((source, result) => {
        for (const { kind, error, count } of source.counts.refused.values()) {
          const attributes: Attributes = { [MEW_SPACE]: source.space, [ERROR_TYPE]: error, ...(kind !== undefined && { [MEW_KIND]: kind }) };
          result.observe(count, attributes);
        }
      }),
    );
    meter
      .createObservableCounter(METRICS.deliveries, { description: 'Routed envelopes delivered to connections', unit: '{delivery}' })
      .addCallback(each((source, result) => result.observe(source.counts.deliveries, { [MEW_SPACE]: source.space })));
  }

  /** Reports a space's gauges and counters until the returned function is called. */
  watch(source: SpaceSource): () => void {
    this.sources.add(source);
    return () => this.sources.delete(source);
  }

  /** A sink for one space's decisions. */
  decisionsOf(space: string): { decided(decision: Decision, decider: DeciderKind, seconds: number): void } {
    return {
      decided: (decision, decider, seconds) => {
        const attributes = { [MEW_SPACE]: space, [MEW_DECISION]: decision, [MEW_DECIDER_KIND]: decider };
        this.decisions.add(1, attributes);
        this.decisionSeconds.record(seconds, attributes);
      },
    };
  }
}
