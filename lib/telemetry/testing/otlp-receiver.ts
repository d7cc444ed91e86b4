/**
 * An in-process OTLP receiver for tests: `POST /v1/traces` and `/v1/metrics` over HTTP, as http/json or
 * http/protobuf (gzip or not), kept as plain spans and metric points. Nothing in the product imports it.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { decodeMetricsRequest, decodeTraceRequest } from './otlp-protobuf';

type Json = Record<string, any>;

/** A received span, its attributes as plain values. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  startNs: bigint;
  endNs: bigint;
  attributes: Record<string, unknown>;
  events: { name: string; attributes: Record<string, unknown> }[];
  links: { traceId: string; spanId: string; attributes: Record<string, unknown> }[];
  status: { code: number; message?: string };
  resource: Record<string, unknown>;
}

/** One data point of a received metric, from the export it arrived in. */
export interface ReceivedPoint {
  metric: string;
  type: 'gauge' | 'sum' | 'histogram';
  unit?: string;
  attributes: Record<string, unknown>;
  /** A gauge's or a sum's value. */
  value?: number;
  /** A histogram's. */
  count?: number;
  sum?: number;
  /** Which export it came in (0 the first). */
  export: number;
}

/** What arrived, in order. */
export interface ReceivedRequest {
  path: string;
  contentType: string;
}

export class OtlpReceiver {
  readonly requests: ReceivedRequest[] = [];
  private readonly received: ReceivedSpan[] = [];
  private readonly points: ReceivedPoint[] = [];
  private exports = 0;

  private constructor(
    private readonly server: Server,
    /** The base endpoint (OTEL_EXPORTER_OTLP_ENDPOINT). */
    readonly url: string,
  ) {}

  static async start(): Promise<OtlpReceiver> {
    let receiver: OtlpReceiver | undefined;
    const server = createServer((req, res) => {
      void readBody(req).then(
        (body) => {
          try {
            receiver!.accept(req.url ?? '', String(req.headers['content-type'] ?? ''), body);
            const json = String(req.headers['content-type']).includes('json');
            res.writeHead(200, { 'content-type': json ? 'application/json' : 'application/x-protobuf' }).end(json ? '{}' : undefined);
          } catch (error) {
            res.writeHead(400, { 'content-type': 'text/plain' }).end(String(error));
          }
        },
        () => res.writeHead(400).end(),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    receiver = new OtlpReceiver(server, `http://127.0.0.1:${port}`);
    return receiver;
  }

  /** Every span received so far. */
  spans(predicate: (span: ReceivedSpan) => boolean = () => true): ReceivedSpan[] {
    return this.received.filter(predicate);
  }

  /** The data points of `metric` in the latest export that had it, optionally only those with these attributes. */
  latest(metric: string, attributes: Record<string, unknown> = {}): ReceivedPoint[] {
    const ofMetric = this.points.filter((p) => p.metric === metric);
    const last = ofMetric.at(-1)?.export;
    return ofMetric.filter((p) => p.export === last && Object.entries(attributes).every(([k, v]) => p.attributes[k] === v));
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private accept(path: string, contentType: string, body: Buffer): void {
    this.requests.push({ path, contentType });
    const json = contentType.includes('json');
    if (path === '/v1/traces') {
      const request: Json = json ? JSON.parse(body.toString('utf8')) : decodeTraceRequest(body);
      for (const rs of request.resourceSpans ?? []) {
        const resource = attributesOf(rs.resource?.attributes);
        for (const ss of rs.scopeSpans ?? []) for (const span of ss.spans ?? []) this.received.push(toSpan(span, resource));
      }
    } else if (path === '/v1/metrics') {
      const request: Json = json ? JSON.parse(body.toString('utf8')) : decodeMetricsRequest(body);
      const at = this.exports++;
      for (const rm of request.resourceMetrics ?? []) {
        for (const sm of rm.scopeMetrics ?? []) for (const metric of sm.metrics ?? []) this.points.push(...toPoints(metric, at));
      }
    } else {
      throw new Error(`no OTLP endpoint at ${path}`);
    }
  }
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const body = Buffer.concat(chunks);
  return req.headers['content-encoding'] === 'gzip' ? gunzipSync(body) : body;
}

/** OTLP/JSON ids may be hex (the SDK's JSON) or base64 (the protobuf JSON mapping): hex either way. */
function hexId(value: unknown): string | undefined {
  if (typeof value !== 'string' || value === '') return undefined;
  return /^[0-9a-f]+$/i.test(value) ? value.toLowerCase() : Buffer.from(value, 'base64').toString('hex');
}

function anyValue(value: Json | undefined): unknown {
  if (!value) return undefined;
  if ('stringValue' in value) return value.stringValue;
  if ('boolValue' in value) return value.boolValue;
  if ('intValue' in value) return Number(value.intValue);
  if ('doubleValue' in value) return Number(value.doubleValue);
  if ('arrayValue' in value) return (value.arrayValue.values ?? []).map(anyValue);
  if ('kvlistValue' in value) return attributesOf(value.kvlistValue.values);
  if ('bytesValue' in value) return value.bytesValue;
  return undefined;
}

function attributesOf(list: Json[] | undefined): Record<string, unknown> {
  return Object.fromEntries((list ?? []).map((kv) => [kv.key, anyValue(kv.value)]));
}

function toSpan(span: Json, resource: Record<string, unknown>): ReceivedSpan {
  const parentSpanId = hexId(span.parentSpanId);
  return {
    traceId: hexId(span.traceId)!,
    spanId: hexId(span.spanId)!,
    ...(parentSpanId !== undefined && { parentSpanId }),
    name: span.name,
    startNs: BigInt(span.startTimeUnixNano ?? 0),
    endNs: BigInt(span.endTimeUnixNano ?? 0),
    attributes: attributesOf(span.attributes),
    events: (span.events ?? []).map((e: Json) => ({ name: e.name, attributes: attributesOf(e.attributes) })),
    links: (span.links ?? []).map((l: Json) => ({ traceId: hexId(l.traceId)!, spanId: hexId(l.spanId)!, attributes: attributesOf(l.attributes) })),
    status: { code: span.status?.code ?? 0, ...(span.status?.message && { message: span.status.message }) },
    resource,
  };
}

function toPoints(metric: Json, at: number): ReceivedPoint[] {
  const base = { metric: metric.name as string, ...(metric.unit && { unit: metric.unit as string }), export: at };
  const number = (p: Json) => ('asInt' in p ? Number(p.asInt) : Number(p.asDouble));
  if (metric.gauge) return metric.gauge.dataPoints.map((p: Json) => ({ ...base, type: 'gauge', attributes: attributesOf(p.attributes), value: number(p) }));
  if (metric.sum) return metric.sum.dataPoints.map((p: Json) => ({ ...base, type: 'sum', attributes: attributesOf(p.attributes), value: number(p) }));
  if (metric.histogram) {
    return metric.histogram.dataPoints.map((p: Json) => ({
      ...base,
      type: 'histogram',
      attributes: attributesOf(p.attributes),
      count: Number(p.count),
      sum: Number(p.sum),
    }));
  }
  return [];
}
