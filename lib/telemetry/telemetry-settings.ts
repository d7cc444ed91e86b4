// The one place that reads the OpenTelemetry settings from the environment. Loading this module loads no
// OpenTelemetry code: with nothing configured, the server never imports any (see telemetry-feature.ts).

/** How OTLP is sent (OTEL_EXPORTER_OTLP_PROTOCOL). */
export const OTLP_PROTOCOLS = ['http/protobuf', 'http/json', 'grpc'] as const;
export type OtlpProtocol = (typeof OTLP_PROTOCOLS)[number];

/** The samplers OTEL_TRACES_SAMPLER may name (the specification's, less the vendor ones). */
export const SAMPLERS = ['always_on', 'always_off', 'traceidratio', 'parentbased_always_on', 'parentbased_always_off', 'parentbased_traceidratio'] as const;
export type SamplerName = (typeof SAMPLERS)[number];

/** Where one signal (traces or metrics) goes. */
export interface OtlpTarget {
  protocol: OtlpProtocol;
  /** The exporter's URL: `…/v1/traces` or `…/v1/metrics` over HTTP, the collector's address over gRPC. */
  url: string;
}

export interface TelemetrySettings {
  /** Where spans go; undefined when traces are off (OTEL_TRACES_EXPORTER=none). */
  traces?: OtlpTarget;
  /** Where metrics go; undefined when metrics are off (OTEL_METRICS_EXPORTER=none). */
  metrics?: OtlpTarget;
  /** `service.name` (OTEL_SERVICE_NAME, else `service.name` among the resource attributes, else `mew-dashboard`). */
  serviceName: string;
  /** OTEL_RESOURCE_ATTRIBUTES, decoded. */
  resourceAttributes: Record<string, string>;
  /** OTEL_TRACES_SAMPLER and OTEL_TRACES_SAMPLER_ARG (a ratio for the `traceidratio` ones). */
  sampler: { name: SamplerName; ratio: number };
  /** MEW_OTEL_CAPTURE_CONTENT=true: tool arguments and results, chat and thoughts are recorded (masked). */
  captureContent: boolean;
  /** How often metrics are exported (OTEL_METRIC_EXPORT_INTERVAL, ms). @default 60000 */
  metricIntervalMs: number;
  /** How long finished spans wait to be batched (OTEL_BSP_SCHEDULE_DELAY, ms). @default 5000 */
  spanDelayMs: number;
  /** Finished spans kept for export at most; beyond, new ones are dropped (OTEL_BSP_MAX_QUEUE_SIZE). @default 2048 */
  spanQueueSize: number;
  /** Spans per export at most (OTEL_BSP_MAX_EXPORT_BATCH_SIZE, no more than the queue). @default 512 */
  spanBatchSize: number;
  /** Settings that were not understood and what was used instead, for the server's log. */
  warnings: string[];
}

export const DEFAULT_SERVICE_NAME = 'mew-dashboard';
const DEFAULT_METRIC_INTERVAL_MS = 60_000;
const DEFAULT_SPAN_DELAY_MS = 5_000;
const DEFAULT_SPAN_QUEUE_SIZE = 2_048;
const DEFAULT_SPAN_BATCH_SIZE = 512;

type Env = Record<string, string | undefined>;

/**
 * The OpenTelemetry export this environment asks for, by the standard variables: OTEL_EXPORTER_OTLP_ENDPOINT (or the
 * per-signal OTEL_EXPORTER_OTLP_TRACES_ENDPOINT / _METRICS_ENDPOINT), OTEL_EXPORTER_OTLP_PROTOCOL (and per signal),
 * OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES, OTEL_TRACES_SAMPLER(_ARG), OTEL_TRACES_EXPORTER / OTEL_METRICS_EXPORTER
 * (`none` turns one off), OTEL_METRIC_EXPORT_INTERVAL, OTEL_BSP_SCHEDULE_DELAY, OTEL_BSP_MAX_QUEUE_SIZE,
 * OTEL_BSP_MAX_EXPORT_BATCH_SIZE, OTEL_SDK_DISABLED; plus
 * MEW_OTEL_CAPTURE_CONTENT. Undefined when nothing is to be exported: no endpoint, or the SDK disabled. Headers,
 * timeouts, compression and certificates (OTEL_EXPORTER_OTLP_HEADERS…) are read by the exporters themselves.
 */
export function telemetrySettings(env: Env = process.env): TelemetrySettings | undefined {
  if (isTrue(env.OTEL_SDK_DISABLED)) return undefined;
  const warnings: string[] = [];
  const traces = target(env, 'TRACES', 'v1/traces', warnings);
  const metrics = target(env, 'METRICS', 'v1/metrics', warnings);
  if (!traces && !metrics) return undefined;
  const resourceAttributes = parseResourceAttributes(env.OTEL_RESOURCE_ATTRIBUTES, warnings);
  const spanQueueSize = Math.round(positiveNumber(env, 'OTEL_BSP_MAX_QUEUE_SIZE', DEFAULT_SPAN_QUEUE_SIZE, warnings, 'spans'));
  return {
    ...(traces && { traces }),
    ...(metrics && { metrics }),
    serviceName: nonEmpty(env.OTEL_SERVICE_NAME) ?? resourceAttributes['service.name'] ?? DEFAULT_SERVICE_NAME,
    resourceAttributes,
    sampler: samplerOf(env, warnings),
    captureContent: isTrue(env.MEW_OTEL_CAPTURE_CONTENT),
    metricIntervalMs: positiveNumber(env, 'OTEL_METRIC_EXPORT_INTERVAL', DEFAULT_METRIC_INTERVAL_MS, warnings),
    spanDelayMs: positiveNumber(env, 'OTEL_BSP_SCHEDULE_DELAY', DEFAULT_SPAN_DELAY_MS, warnings),
    spanQueueSize,
    spanBatchSize: Math.min(spanQueueSize, Math.round(positiveNumber(env, 'OTEL_BSP_MAX_EXPORT_BATCH_SIZE', DEFAULT_SPAN_BATCH_SIZE, warnings, 'spans'))),
    warnings: [...new Set(warnings)],
  };
}

function target(env: Env, signal: 'TRACES' | 'METRICS', path: string, warnings: string[]): OtlpTarget | undefined {
  const exporter = nonEmpty(env[`OTEL_${signal}_EXPORTER`]);
  if (exporter === 'none') return undefined;
  if (exporter !== undefined && exporter !== 'otlp') warnings.push(`OTEL_${signal}_EXPORTER=${exporter} is not supported here: otlp is used`);
  const protocol = protocolOf(env, signal, warnings);
  const own = nonEmpty(env[`OTEL_EXPORTER_OTLP_${signal}_ENDPOINT`]);
  if (own) return { protocol, url: own };
  const base = nonEmpty(env.OTEL_EXPORTER_OTLP_ENDPOINT);
  if (!base) return undefined;
  // The specification: the base endpoint gets the signal's path over HTTP; gRPC takes it as it is.
  return { protocol, url: protocol === 'grpc' ? base : `${base.replace(/\/+$/, '')}/${path}` };
}

function protocolOf(env: Env, signal: string, warnings: string[]): OtlpProtocol {
  const name = `OTEL_EXPORTER_OTLP_${signal}_PROTOCOL`;
  const own = nonEmpty(env[name]);
  const value = own ?? nonEmpty(env.OTEL_EXPORTER_OTLP_PROTOCOL);
  if (value === undefined) return 'http/protobuf';
  if ((OTLP_PROTOCOLS as readonly string[]).includes(value)) return value as OtlpProtocol;
  warnings.push(`${own ? name : 'OTEL_EXPORTER_OTLP_PROTOCOL'}=${value} is not one of ${OTLP_PROTOCOLS.join(', ')}: http/protobuf is used`);
  return 'http/protobuf';
}

function samplerOf(env: Env, warnings: string[]): TelemetrySettings['sampler'] {
  const value = nonEmpty(env.OTEL_TRACES_SAMPLER) ?? 'parentbased_always_on';
  let name: SamplerName = 'parentbased_always_on';
  if ((SAMPLERS as readonly string[]).includes(value)) name = value as SamplerName;
  else warnings.push(`OTEL_TRACES_SAMPLER=${value} is not one of ${SAMPLERS.join(', ')}: parentbased_always_on is used`);
  const arg = nonEmpty(env.OTEL_TRACES_SAMPLER_ARG);
  let ratio = 1;
  if (arg !== undefined && name.endsWith('traceidratio')) {
    const parsed = Number(arg);
    if (Number.isFinite(parsed) && parsed >= 0 && parsed <= 1) ratio = parsed;
    else warnings.push(`OTEL_TRACES_SAMPLER_ARG=${arg} is not a ratio between 0 and 1: 1 is used`);
  }
  return { name, ratio };
}

/** `key1=value1,key2=value2`, each part percent-encoded (the specification's format); malformed pairs are skipped. */
function parseResourceAttributes(value: string | undefined, warnings: string[]): Record<string, string> {
  const attributes: Record<string, string> = {};
  for (const pair of (value ?? '').split(',')) {
    if (pair.trim() === '') continue;
    const at = pair.indexOf('=');
    try {
      if (at <= 0) throw new Error('no key');
      attributes[decodeURIComponent(pair.slice(0, at).trim())] = decodeURIComponent(pair.slice(at + 1).trim());
    } catch {
      warnings.push(`OTEL_RESOURCE_ATTRIBUTES: "${pair}" is not key=value (percent-encoded): skipped`);
    }
  }
  return attributes;
}

function positiveNumber(env: Env, name: string, fallback: number, warnings: string[], unit = 'milliseconds'): number {
  const value = nonEmpty(env[name]);
  if (value === undefined) return fallback;
  const parsed = Number(value);
  if (Number.isFinite(parsed) && parsed > 0) return parsed;
  warnings.push(`${name}=${value} is not a positive number of ${unit}: ${fallback} is used`);
  return fallback;
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}

function isTrue(value: string | undefined): boolean {
  return value?.trim().toLowerCase() === 'true';
}
