import { describe, expect, it } from 'vitest';
import { telemetrySettings } from './telemetry-settings';

describe('telemetry settings from the environment', () => {
  it('are off with no endpoint, or with the SDK disabled', () => {
    expect(telemetrySettings({})).toBeUndefined();
    expect(telemetrySettings({ OTEL_EXPORTER_OTLP_ENDPOINT: '  ', OTEL_SERVICE_NAME: 'x' })).toBeUndefined();
    expect(telemetrySettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'true' })).toBeUndefined();
    expect(telemetrySettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_TRACES_EXPORTER: 'none', OTEL_METRICS_EXPORTER: 'none' })).toBeUndefined();
  });

  it('send both signals over http/protobuf to the endpoint with their paths, by default', () => {
    expect(telemetrySettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' })).toEqual({
      traces: { protocol: 'http/protobuf', url: 'http://collector:4318/v1/traces' },
      metrics: { protocol: 'http/protobuf', url: 'http://collector:4318/v1/metrics' },
      serviceName: 'mew-dashboard',
      resourceAttributes: {},
      sampler: { name: 'parentbased_always_on', ratio: 1 },
      captureContent: false,
      metricIntervalMs: 60_000,
      spanDelayMs: 5_000,
      spanQueueSize: 2_048,
      spanBatchSize: 512,
      warnings: [],
    });
  });

  it('follow the per-signal variables, gRPC, the service name, resource attributes, the sampler and content capture', () => {
    const settings = telemetrySettings({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4317',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
      OTEL_EXPORTER_OTLP_METRICS_PROTOCOL: 'http/json',
      OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: 'http://metrics:4318/v1/metrics',
      OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment=prod,team=ops%2Cinfra, service.name=from-attributes',
      OTEL_SERVICE_NAME: 'mew-prod',
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0.25',
      MEW_OTEL_CAPTURE_CONTENT: 'TRUE',
      OTEL_METRIC_EXPORT_INTERVAL: '15000',
      OTEL_BSP_MAX_QUEUE_SIZE: '100',
      OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '512',
    });
    expect(settings).toMatchObject({
      traces: { protocol: 'grpc', url: 'http://collector:4317' },
      metrics: { protocol: 'http/json', url: 'http://metrics:4318/v1/metrics' },
      serviceName: 'mew-prod',
      resourceAttributes: { 'deployment.environment': 'prod', team: 'ops,infra', 'service.name': 'from-attributes' },
      sampler: { name: 'parentbased_traceidratio', ratio: 0.25 },
      captureContent: true,
      metricIntervalMs: 15_000,
      spanQueueSize: 100,
      spanBatchSize: 100,
      warnings: [],
    });
    expect(telemetrySettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_RESOURCE_ATTRIBUTES: 'service.name=svc' })?.serviceName).toBe('svc');
    expect(telemetrySettings({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://c:4318/v1/traces' })).toMatchObject({ traces: { url: 'http://c:4318/v1/traces' } });
    expect(telemetrySettings({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://c:4318/v1/traces' })?.metrics).toBeUndefined();
  });

  it('use the defaults, and say so, for what they do not understand', () => {
    const settings = telemetrySettings({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'thrift',
      OTEL_TRACES_SAMPLER: 'jaeger_remote',
      OTEL_RESOURCE_ATTRIBUTES: 'broken,ok=1',
      OTEL_METRIC_EXPORT_INTERVAL: '-5',
    });
    expect(settings).toMatchObject({
      traces: { protocol: 'http/protobuf' },
      sampler: { name: 'parentbased_always_on' },
      resourceAttributes: { ok: '1' },
      metricIntervalMs: 60_000,
    });
    expect(settings?.warnings).toEqual([
      'OTEL_EXPORTER_OTLP_PROTOCOL=thrift is not one of http/protobuf, http/json, grpc: http/protobuf is used',
      'OTEL_RESOURCE_ATTRIBUTES: "broken" is not key=value (percent-encoded): skipped',
      'OTEL_TRACES_SAMPLER=jaeger_remote is not one of always_on, always_off, traceidratio, parentbased_always_on, parentbased_always_off, parentbased_traceidratio: parentbased_always_on is used',
      'OTEL_METRIC_EXPORT_INTERVAL=-5 is not a positive number of milliseconds: 60000 is used',
    ]);
  });
});
