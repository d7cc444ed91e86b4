// Loaded only when OpenTelemetry is configured (telemetry-feature.ts imports it with `import()`): the SDK, the
// exporters of the configured protocol, and what turns a space's envelopes into spans and metrics.
import type { Tracer } from '@opentelemetry/api';
import { defaultResource, resourceFromAttributes } from '@opentelemetry/resources';
import { MeterProvider, PeriodicExportingMetricReader, type PushMetricExporter } from '@opentelemetry/sdk-metrics';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
  TracerProvider,
  type Sampler,
  type SpanExporter,
} from '@opentelemetry/sdk-trace';
import type { Envelope } from '../protocol';
import type { Participant } from '../gateway/participant';
import type { Space } from '../gateway/space';
import { ChainTracer } from './chain-tracer';
import { SpaceCounts, TelemetryMetrics } from './telemetry-metrics';
import type { OtlpTarget, TelemetrySettings } from './telemetry-settings';

/** The instrumentation scope of MEW's spans and metrics. */
const SCOPE = 'mew-dashboard';

/** One space as the runtime observes it. */
export interface ObservedSpace {
  /** Stops observing; its open spans end as incomplete. */
  detach(): void;
}

/** The SDK for this process: one tracer and one meter provider, shared by every space it hosts. */
export interface OtelRuntime {
  observe(space: Space): ObservedSpace;
  /** Exports what is finished now (spans, and a collection of every metric). */
  flush(): Promise<void>;
  /** Flushes and stops exporting. */
  shutdown(): Promise<void>;
}

export async function startOtelRuntime(settings: TelemetrySettings): Promise<OtelRuntime> {
  const resource = defaultResource().merge(resourceFromAttributes({ ...settings.resourceAttributes, 'service.name': settings.serviceName }));
  const [spanExporter, metricsExporter] = await Promise.all([
    settings.traces && traceExporter(settings.traces),
    settings.metrics && metricExporter(settings.metrics),
  ]);
  const tracerProvider = spanExporter
    ? new TracerProvider({
        resource,
        sampler: samplerOf(settings.sampler),
        spanProcessors: [
          new BatchSpanProcessor({
            exporter: spanExporter,
            scheduledDelayMillis: settings.spanDelayMs,
            maxQueueSize: settings.spanQueueSize,
            maxExportBatchSize: settings.spanBatchSize,
          }),
        ],
      })
    : undefined;
  const meterProvider = metricsExporter
    ? new MeterProvider({
        resource,
        readers: [new PeriodicExportingMetricReader({ exporter: metricsExporter, exportIntervalMillis: settings.metricIntervalMs })],
      })
    : undefined;
  // Not registered globally: nothing else in the process (Next's own instrumentation included) reports through them.
  const tracer: Tracer | undefined = tracerProvider?.getTracer(SCOPE);
  const metrics = meterProvider && new TelemetryMetrics(meterProvider.getMeter(SCOPE));

  return {
    observe(space) {
      const counts = new SpaceCounts();
      const decisions = metrics?.decisionsOf(space.id) ?? { decided: () => undefined };
      const tracing =
        tracer && new ChainTracer({ space: space.id, tracer, decisions, captureContent: settings.captureContent, supervisor: () => space.supervisor });
      // Pending proposals are counted by the chain tracer; with traces off, a tracer of no spans does it.
      const chains = tracing ?? new ChainTracer({ space: space.id, tracer: noSpans(), decisions, captureContent: false, supervisor: () => space.supervisor });
      chains.resume(space.history.toArray().flatMap((message) => (message.envelope ? [message.envelope] : [])));
      // Who is connected, read again at each presence change (the envelopes between go to the same participants).
      let online = onlineOf(space);
      const stopObserving = space.observe((envelope) => {
        if (envelope.kind === 'system/presence') online = onlineOf(space);
        counts.countRouted(envelope.kind);
        counts.deliveries += recipients(online, envelope);
        chains.observe(envelope);
      });
      const stopRefusals = space.observeRefusals((refusal) => counts.countRefused(refusal.kind, refusal.error));
      const unwatch = metrics?.watch({
        space: space.id,
        counts,
        pending: () => chains.pending,
        online: () => space.connectedCount,
        connections: () => connectionsOf(space),
        usage: () => chains.usage,
      });
      return {
        detach() {
          stopObserving();
          stopRefusals();
          unwatch?.();
          chains.close();
        },
      };
    },
    async flush() {
      await Promise.all([tracerProvider?.forceFlush(), meterProvider?.forceFlush()]);
    },
    async shutdown() {
      await Promise.all([tracerProvider?.shutdown(), meterProvider?.shutdown()]);
    },
  };
}

function onlineOf(space: Space): Participant[] {
  return [...space.participants.values()].filter((participant) => participant.online);
}

/** Connections a routed envelope is delivered to (each of a participant's connections that receives it). */
function recipients(online: readonly Participant[], envelope: Envelope): number {
  let count = 0;
  for (const participant of online) {
    for (const link of participant.links) if (participant.receives(envelope, link.routing)) count++;
  }
  return count;
}

function connectionsOf(space: Space): number {
  let count = 0;
  for (const participant of space.participants.values()) count += participant.links.length;
  return count;
}

/** The span exporter of the configured protocol: only its package is loaded. */
async function traceExporter({ protocol, url }: OtlpTarget): Promise<SpanExporter> {
  if (protocol === 'grpc') return new (await import('@opentelemetry/exporter-trace-otlp-grpc')).OTLPTraceExporter({ url });
  if (protocol === 'http/json') return new (await import('@opentelemetry/exporter-trace-otlp-http')).OTLPTraceExporter({ url });
  return new (await import('@opentelemetry/exporter-trace-otlp-proto')).OTLPTraceExporter({ url });
}

async function metricExporter({ protocol, url }: OtlpTarget): Promise<PushMetricExporter> {
  if (protocol === 'grpc') return new (await import('@opentelemetry/exporter-metrics-otlp-grpc')).OTLPMetricExporter({ url });
  if (protocol === 'http/json') return new (await import('@opentelemetry/exporter-metrics-otlp-http')).OTLPMetricExporter({ url });
  return new (await import('@opentelemetry/exporter-metrics-otlp-proto')).OTLPMetricExporter({ url });
}

/** OTEL_TRACES_SAMPLER, as the specification names them. */
function samplerOf({ name, ratio }: TelemetrySettings['sampler']): Sampler {
  const root = name.endsWith('always_off')
    ? new AlwaysOffSampler()
    : name.endsWith('traceidratio')
      ? new TraceIdRatioBasedSampler(ratio)
      : new AlwaysOnSampler();
  return name.startsWith('parentbased_') ? new ParentBasedSampler({ root }) : root;
}

/** A tracer whose spans record nothing (metrics without traces). */
function noSpans(): Tracer {
  return new TracerProvider({ sampler: new AlwaysOffSampler() }).getTracer(SCOPE);
}
