import { JsonMetricsSerializer, JsonTraceSerializer, ProtobufMetricsSerializer, ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { AggregationTemporality, InMemoryMetricExporter, MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { afterEach, describe, expect, it } from 'vitest';
import { OtlpReceiver } from './otlp-receiver';

// The test receiver reads OTLP/protobuf as it reads OTLP/JSON: the SDK's own two serializations of the same spans
// and metrics arrive as the same spans and points.

describe('the test OTLP receiver', () => {
  let receiver: OtlpReceiver | undefined;
  afterEach(() => receiver?.close());

  const post = (path: string, body: Uint8Array, contentType: string) =>
    fetch(`${receiver!.url}${path}`, { method: 'POST', body: Buffer.from(body), headers: { 'content-type': contentType } });

  it('decodes protobuf spans and metrics to what their JSON says', async () => {
    receiver = await OtlpReceiver.start();
    const exporter = new InMemorySpanExporter();
    const tracer = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] }).getTracer('t');
    const parent = tracer.startSpan('parent', { attributes: { s: 'v', n: 3, f: 1.5, b: true, list: ['x', 'y'] } });
    const link = parent.spanContext();
    parent.addEvent('happened', { k: 1 });
    parent.setStatus({ code: 2, message: 'failed' });
    parent.end();
    tracer.startSpan('linked', { links: [{ context: link, attributes: { why: 'asked' } }] }).end();
    const spans = exporter.getFinishedSpans();
    expect((await post('/v1/traces', JsonTraceSerializer.serializeRequest(spans)!, 'application/json')).status).toBe(200);
    expect((await post('/v1/traces', ProtobufTraceSerializer.serializeRequest(spans)!, 'application/x-protobuf')).status).toBe(200);
    const [fromJson, fromProtobuf] = [receiver.spans().slice(0, 2), receiver.spans().slice(2)];
    expect(fromProtobuf).toEqual(fromJson);
    expect(fromJson[0]).toMatchObject({
      name: 'parent',
      attributes: { s: 'v', n: 3, f: 1.5, b: true, list: ['x', 'y'] },
      status: { code: 2, message: 'failed' },
    });
    expect(fromJson[1].links).toEqual([{ traceId: link.traceId, spanId: link.spanId, attributes: { why: 'asked' } }]);

    const metrics = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
    const provider = new MeterProvider({ readers: [new PeriodicExportingMetricReader({ exporter: metrics, exportIntervalMillis: 60_000 })] });
    const meter = provider.getMeter('m');
    meter.createCounter('c').add(2, { a: 'b' });
    meter.createHistogram('h', { unit: 's' }).record(0.3);
    meter.createObservableGauge('g').addCallback((result) => result.observe(4, { x: 'y' }));
    await provider.forceFlush();
    const collected = metrics.getMetrics()[0];
    await post('/v1/metrics', JsonMetricsSerializer.serializeRequest(collected)!, 'application/json');
    const json = ['c', 'h', 'g'].map((name) => receiver!.latest(name).map(({ export: _, ...point }) => point));
    await post('/v1/metrics', ProtobufMetricsSerializer.serializeRequest(collected)!, 'application/x-protobuf');
    const protobuf = ['c', 'h', 'g'].map((name) => receiver!.latest(name).map(({ export: _, ...point }) => point));
    expect(protobuf).toEqual(json);
    expect(json).toEqual([
      [{ metric: 'c', type: 'sum', attributes: { a: 'b' }, value: 2 }],
      [{ metric: 'h', type: 'histogram', unit: 's', attributes: {}, count: 1, sum: 0.3 }],
      [{ metric: 'g', type: 'gauge', attributes: { x: 'y' }, value: 4 }],
    ]);
    await provider.shutdown();
  });
});
