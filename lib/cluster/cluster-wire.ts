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
  | { op: 'accept'; connection: string; participant: string }
  | { op: 'close'; connection: string; code: number; reason: string };

/** One delivery read from an outbox: bytes for the listed connections, and what batching needs of them. */
export interface OutboxDelivery {
  connections: string[];
  data: Buffer;
  binary: boolean;
  header?: { kind: string; from: string; to?: string[] };
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

/**
 * Splits a stream entry's fields (as Buffers) into its items, each a map from field to value; values stay Buffers
 * so frame bytes are never copied or re-encoded.
 */
function itemsOf(raw: Buffer[]): Map<string, Buffer>[] {
  const items: Map<string, Buffer>[] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i].toString();
    if (name === 'o' || items.length === 0) items.push(new Map());
    items[items.length - 1].set(name, raw[i + 1]);
  }
  return items;
}

/** The items of one inbox stream entry (its unpacked fields), in order. */
export function decodeInboxEntry(fields: Buffer[]): InboxEntry[] {
  return itemsOf(fields).flatMap((item) => decodeInboxItem(item) ?? []);
}

function decodeInboxItem(f: Map<string, Buffer>): InboxEntry | undefined {
  const text = (name: string) => f.get(name)?.toString();
  const node = text('n');
  const connection = text('c');
  if (!node || !connection) return undefined;
  const ref = { node, connection };
  switch (text('o')) {
    case 'attach':
      return { ...ref, op: 'attach', token: text('k') ?? '', claimedId: text('j'), address: text('a'), routing: routingModeOf(text('r')), after: text('u'), exclusive: text('x') === '1' };
    case 'frame':
      return { ...ref, op: 'frame', data: f.get('d') ?? Buffer.alloc(0), binary: text('b') === '1' };
    case 'detach':
      return { ...ref, op: 'detach', code: Number(text('cc') ?? 1006), reason: text('cr') ?? '' };
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
  return itemsOf(raw).flatMap((item) => decodeOutboxItem(item) ?? []);
}

/** A delivery item's fields: `o` `deliver`, `c` the connections, `d` the bytes, then `m` and `b` when they apply. */
export function deliveryFields(connection: string, data: Buffer, header: string | undefined, binary: boolean): (string | Buffer)[] {
  const fields: (string | Buffer)[] = ['o', 'deliver', 'c', connection, 'd', data];
  if (header !== undefined) fields.push('m', header);
  if (binary) fields.push('b', '1');
  return fields;
}

function decodeOutboxItem(f: Map<string, Buffer>): OutboxControl | OutboxDelivery | undefined {
  const text = (name: string) => f.get(name)?.toString();
  const op = text('o');
  if (op === 'deliver') {
    const data = f.get('d');
    const connections = text('c');
    if (data === undefined || !connections) return undefined;
    const meta = text('m');
    return { connections: connections.split(','), data, binary: text('b') === '1', ...(meta && { header: expandHeader(JSON.parse(meta)) }) };
  }
  const connection = text('c') ?? '';
  if (op === 'accept') return { op, connection, participant: text('p') ?? '' };
  if (op === 'close') return { op, connection, code: Number(text('cc') ?? 1011), reason: text('cr') ?? '' };
  return undefined;
}

function expandHeader(meta: { k: string; f: string; t?: string[] }): OutboxDelivery['header'] {
  return { kind: meta.k, from: meta.f, ...(meta.t && { to: meta.t }) };
}
