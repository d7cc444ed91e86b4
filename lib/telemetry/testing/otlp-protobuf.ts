// Decodes OTLP/protobuf export requests (opentelemetry-proto's trace_service and metrics_service) into the same
// shape OTLP/JSON has, so a test's receiver reads both the same way. Only what the tests read is decoded: spans
// (events, links, status), gauges, sums and histograms, and their resources and attributes.

type Fields = Map<number, (bigint | Uint8Array)[]>;

/** The fields of one message by number: varints as bigint, everything else as its bytes. */
function fields(bytes: Uint8Array): Fields {
  const out: Fields = new Map();
  let at = 0;
  const varint = (): bigint => {
    let value = 0n;
    for (let shift = 0n; ; shift += 7n) {
      const byte = bytes[at++];
      if (byte === undefined) throw new Error('truncated varint');
      value |= BigInt(byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return value;
    }
  };
  while (at < bytes.length) {
    const tag = Number(varint());
    const number = tag >>> 3;
    let value: bigint | Uint8Array;
    switch (tag & 7) {
      case 0:
        value = varint();
        break;
      case 1:
        value = bytes.subarray(at, (at += 8));
        break;
      case 2: {
        const length = Number(varint());
        value = bytes.subarray(at, (at += length));
        break;
      }
      case 5:
        value = bytes.subarray(at, (at += 4));
        break;
      default:
        throw new Error(`unsupported wire type ${tag & 7}`);
    }
    const list = out.get(number);
    if (list) list.push(value);
    else out.set(number, [value]);
  }
  return out;
}

const text = new TextDecoder();
const all = (f: Fields, n: number) => (f.get(n) ?? []) as Uint8Array[];
const one = (f: Fields, n: number) => f.get(n)?.at(-1);
const bytesOf = (f: Fields, n: number) => one(f, n) as Uint8Array | undefined;
const string = (f: Fields, n: number) => {
  const b = bytesOf(f, n);
  return b === undefined ? undefined : text.decode(b);
};
const hex = (f: Fields, n: number) => {
  const b = bytesOf(f, n);
  return b === undefined || b.length === 0 ? undefined : Buffer.from(b).toString('hex');
};
const view = (b: Uint8Array) => new DataView(b.buffer, b.byteOffset, b.byteLength);
const fixed64 = (f: Fields, n: number) => {
  const b = bytesOf(f, n);
  return b === undefined ? undefined : view(b).getBigUint64(0, true).toString();
};
const double = (f: Fields, n: number) => {
  const b = bytesOf(f, n);
  return b === undefined ? undefined : view(b).getFloat64(0, true);
};
const int = (f: Fields, n: number) => {
  const v = one(f, n);
  return typeof v === 'bigint' ? Number(BigInt.asIntN(64, v)) : undefined;
};
/** Packed repeated 8-byte values (fixed64 or double). */
const packed = (f: Fields, n: number, read: (d: DataView, at: number) => number) =>
  all(f, n).flatMap((b) => Array.from({ length: b.length / 8 }, (_, i) => read(view(b), i * 8)));
const defined = <T extends Record<string, unknown>>(object: T) => Object.fromEntries(Object.entries(object).filter(([, v]) => v !== undefined));

function anyValue(b: Uint8Array): Record<string, unknown> {
  const f = fields(b);
  if (f.has(1)) return { stringValue: string(f, 1) };
  if (f.has(2)) return { boolValue: one(f, 2) === 1n };
  if (f.has(3)) return { intValue: int(f, 3) };
  if (f.has(4)) return { doubleValue: double(f, 4) };
  if (f.has(5)) return { arrayValue: { values: all(fields(bytesOf(f, 5)!), 1).map(anyValue) } };
  if (f.has(6)) return { kvlistValue: { values: all(fields(bytesOf(f, 6)!), 1).map(keyValue) } };
  if (f.has(7)) return { bytesValue: Buffer.from(bytesOf(f, 7)!).toString('base64') };
  return {};
}

function keyValue(b: Uint8Array) {
  const f = fields(b);
  return { key: string(f, 1) ?? '', value: f.has(2) ? anyValue(bytesOf(f, 2)!) : {} };
}

const attributes = (f: Fields, n: number) => all(f, n).map(keyValue);

function resource(b: Uint8Array | undefined) {
  return { attributes: b === undefined ? [] : attributes(fields(b), 1) };
}

function scope(b: Uint8Array | undefined) {
  if (b === undefined) return {};
  const f = fields(b);
  return defined({ name: string(f, 1), version: string(f, 2) });
}

function span(b: Uint8Array) {
  const f = fields(b);
  const status = bytesOf(f, 15);
  const s = status === undefined ? undefined : fields(status);
  return defined({
    traceId: hex(f, 1),
    spanId: hex(f, 2),
    traceState: string(f, 3),
    parentSpanId: hex(f, 4),
    name: string(f, 5),
    kind: int(f, 6),
    startTimeUnixNano: fixed64(f, 7),
    endTimeUnixNano: fixed64(f, 8),
    attributes: attributes(f, 9),
    events: all(f, 11).map((e) => {
      const ef = fields(e);
      return { timeUnixNano: fixed64(ef, 1), name: string(ef, 2), attributes: attributes(ef, 3) };
    }),
    links: all(f, 13).map((l) => {
      const lf = fields(l);
      return defined({ traceId: hex(lf, 1), spanId: hex(lf, 2), traceState: string(lf, 3), attributes: attributes(lf, 4) });
    }),
    status: s === undefined ? { code: 0 } : defined({ message: string(s, 2), code: int(s, 3) ?? 0 }),
  });
}

/** An `ExportTraceServiceRequest` in its OTLP/JSON shape. */
export function decodeTraceRequest(body: Uint8Array) {
  return {
    resourceSpans: all(fields(body), 1).map((rs) => {
      const f = fields(rs);
      return {
        resource: resource(bytesOf(f, 1)),
        scopeSpans: all(f, 2).map((ss) => {
          const sf = fields(ss);
          return { scope: scope(bytesOf(sf, 1)), spans: all(sf, 2).map(span) };
        }),
      };
    }),
  };
}

function numberPoint(b: Uint8Array) {
  const f = fields(b);
  const asInt = bytesOf(f, 6);
  return defined({
    attributes: attributes(f, 7),
    startTimeUnixNano: fixed64(f, 2),
    timeUnixNano: fixed64(f, 3),
    asDouble: double(f, 4),
    asInt: asInt === undefined ? undefined : Number(view(asInt).getBigInt64(0, true)),
  });
}

function histogramPoint(b: Uint8Array) {
  const f = fields(b);
  return defined({
    attributes: attributes(f, 9),
    startTimeUnixNano: fixed64(f, 2),
    timeUnixNano: fixed64(f, 3),
    count: Number(fixed64(f, 4) ?? 0),
    sum: double(f, 5),
    bucketCounts: packed(f, 6, (d, at) => Number(d.getBigUint64(at, true))),
    explicitBounds: packed(f, 7, (d, at) => d.getFloat64(at, true)),
    min: double(f, 11),
    max: double(f, 12),
  });
}

function metric(b: Uint8Array) {
  const f = fields(b);
  const data = (n: number) => {
    const d = bytesOf(f, n);
    return d === undefined ? undefined : fields(d);
  };
  const gauge = data(5);
  const sum = data(7);
  const histogram = data(9);
  return defined({
    name: string(f, 1),
    description: string(f, 2),
    unit: string(f, 3),
    gauge: gauge && { dataPoints: all(gauge, 1).map(numberPoint) },
    sum: sum && { dataPoints: all(sum, 1).map(numberPoint), aggregationTemporality: int(sum, 2), isMonotonic: one(sum, 3) === 1n },
    histogram: histogram && { dataPoints: all(histogram, 1).map(histogramPoint), aggregationTemporality: int(histogram, 2) },
  });
}

/** An `ExportMetricsServiceRequest` in its OTLP/JSON shape. */
export function decodeMetricsRequest(body: Uint8Array) {
  return {
    resourceMetrics: all(fields(body), 1).map((rm) => {
      const f = fields(rm);
      return {
        resource: resource(bytesOf(f, 1)),
        scopeMetrics: all(f, 2).map((sm) => {
          const sf = fields(sm);
          return { scope: scope(bytesOf(sf, 1)), metrics: all(sf, 2).map(metric) };
        }),
      };
    }),
  };
}
