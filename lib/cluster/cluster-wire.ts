import { routingModeOf, type RoutingMode } from '../gateway/participant';
import { unpackFields } from './packed-fields';

/**
 * What nodes write to a space's inbox and what owners write to a node's outbox: Redis stream entries of one field
 * (`PACKED_FIELD`), a packed flat field/value list (`packFields`) carrying every item of a turn; each item starts with
 * its `o` field. Field names are short: under load every frame is an item.
 */

/** The one field of an inbox or outbox entry. */
export const PACKED_FIELD = 'p';

/** The fields of a packed inbox or outbox entry as read from Redis (field name, packed value). */
export function unpackEntry(raw: Buffer[]): Buffer[] {
  return raw.length === 2 && raw[0].toString() === PACKED_FIELD ? unpackFields(raw[1]) : [];
}

/** A connection of node `node` (ids are unique per node), as the owner addresses it. */
export interface ConnectionRef {
  node: string;
  connection: string;
}

export type InboxEntry = ConnectionRef &
  (
    | {
        op: 'attach';
        token: string;
        claimedId?: string;
        address?: string;
        routing?: RoutingMode;
        /** The `?after=` cursor, as the client gave it. */
        after?: string;
        exclusive?: boolean;
      }
    | { op: 'frame'; data: Buffer; binary: boolean }
    | { op: 'detach'; code: number; reason: string }
  );

export type OutboxControl =
  /** The owner authenticated the connection as `participant` (its welcome follows). */
  { op: 'accept'; connection: string; participant: string } | { op: 'close'; connection: string; code: number; reason: string };

/** One delivery read from an outbox: bytes for the listed connections, and what batching needs of them. */
export interface OutboxDelivery {
  connections: string[];
  data: Buffer;
  binary: boolean;
  /** Kind, sender and recipients as JSON (`parseDeliveryHeader`), parsed only where a connection batches routine traffic. */
  header?: Buffer;
}

type Fields = (string | Buffer)[];

export function encodeInboxEntry(entry: InboxEntry): Fields {
  const fields: Fields = ['o', entry.op, 'n', entry.node, 'c', entry.connection];
  const put = (name: string, value: string | Buffer | undefined) => value !== undefined && fields.push(name, value);
  switch (entry.op) {
    case 'attach':
      put('k', entry.token);
      put('j', entry.claimedId);
      put('a', entry.address);
      put('r', entry.routing);
      put('u', entry.after);
      put('x', entry.exclusive ? '1' : undefined);
      break;
    case 'frame':
      put('d', entry.data);
      put('b', entry.binary ? '1' : undefined);
      break;
    case 'detach':
      put('cc', String(entry.code));
      put('cr', entry.reason);
      break;
  }
  return fields;
}

/** One item's fields by name, their values as read (Buffers: frame bytes are never copied or re-encoded). */
type ItemFields = Partial<Record<string, Buffer>>;

/** Field names as strings, without decoding: they are one or two ASCII letters. */
const LETTERS = Array.from({ length: 128 }, (_, code) => String.fromCharCode(code));

function nameOf(field: Buffer): string {
  return field.length === 1 ? LETTERS[field[0] & 0x7f] : field.toString('latin1');
}

/** Splits a stream entry's fields into its items, each starting with its `o` field. */
function itemsOf(raw: Buffer[]): ItemFields[] {
  const items: ItemFields[] = [];
  let item: ItemFields | undefined;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = nameOf(raw[i]);
    if (name === 'o' || !item) items.push((item = {}));
    item[name] = raw[i + 1];
  }
  return items;
}

function text(value: Buffer | undefined): string | undefined {
  return value?.toString();
}

/** The items of one inbox stream entry (its unpacked fields), in order. */
export function decodeInboxEntry(fields: Buffer[]): InboxEntry[] {
  const entries: InboxEntry[] = [];
  for (const item of itemsOf(fields)) {
    const entry = decodeInboxItem(item);
    if (entry) entries.push(entry);
  }
  return entries;
}

function decodeInboxItem(f: ItemFields): InboxEntry | undefined {
  const node = text(f.n);
  const connection = text(f.c);
  if (!node || !connection) return undefined;
  switch (text(f.o)) {
    case 'frame':
      return { node, connection, op: 'frame', data: f.d ?? Buffer.alloc(0), binary: f.b !== undefined };
    case 'attach':
      return {
        node,
        connection,
        op: 'attach',
        token: text(f.k) ?? '',
        claimedId: text(f.j),
        address: text(f.a),
        routing: routingModeOf(text(f.r)),
        after: text(f.u),
        exclusive: f.x !== undefined,
      };
    case 'detach':
      return { node, connection, op: 'detach', code: Number(text(f.cc) ?? 1006), reason: text(f.cr) ?? '' };
    default:
      return undefined;
  }
}

export function encodeOutboxControl(control: OutboxControl): Fields {
  switch (control.op) {
    case 'accept':
      return ['o', 'accept', 'c', control.connection, 'p', control.participant];
    case 'close':
      return ['o', 'close', 'c', control.connection, 'cc', String(control.code), 'cr', control.reason];
  }
}

/** The items of one outbox entry (its unpacked fields), in order. */
export function decodeOutboxEntry(raw: Buffer[]): (OutboxControl | OutboxDelivery)[] {
  const entries: (OutboxControl | OutboxDelivery)[] = [];
  for (const item of itemsOf(raw)) {
    const entry = decodeOutboxItem(item);
    if (entry) entries.push(entry);
  }
  return entries;
}

/** A delivery item's fields: `o` `deliver`, `c` the connections, `d` the bytes, then `m` and `b` when they apply. */
export function deliveryFields(connection: string, data: Buffer, header: string | undefined, binary: boolean): (string | Buffer)[] {
  const fields: (string | Buffer)[] = ['o', 'deliver', 'c', connection, 'd', data];
  if (header !== undefined) fields.push('m', header);
  if (binary) fields.push('b', '1');
  return fields;
}

function decodeOutboxItem(f: ItemFields): OutboxControl | OutboxDelivery | undefined {
  const op = text(f.o);
  if (op === 'deliver') {
    const connections = text(f.c);
    if (f.d === undefined || !connections) return undefined;
    return { connections: connections.split(','), data: f.d, binary: f.b !== undefined, ...(f.m && { header: f.m }) };
  }
  const connection = text(f.c) ?? '';
  if (op === 'accept') return { op, connection, participant: text(f.p) ?? '' };
  if (op === 'close') return { op, connection, code: Number(text(f.cc) ?? 1011), reason: text(f.cr) ?? '' };
  return undefined;
}

/** A delivery's header as the owner wrote it: what a transport needs to batch routine traffic, without the bytes parsed. */
export function parseDeliveryHeader(header: Buffer): { kind: string; from: string; to?: string[] } {
  const meta = JSON.parse(header.toString()) as { k: string; f: string; t?: string[] };
  return { kind: meta.k, from: meta.f, ...(meta.t && { to: meta.t }) };
}
