// Test helpers only: envelope builders shaped like the spec's examples.
import { PROTOCOL_VERSION } from '../../protocol';
import type { StoreEnvelope } from './store-envelope';

/** The spec examples' date: 2025-08-26T14:00:00Z. */
export const T0 = Date.parse('2025-08-26T14:00:00Z');

/** RFC 3339 time `ms` after T0. */
export function iso(ms = 0): string {
  return new Date(T0 + ms).toISOString();
}

type Fields = Omit<StoreEnvelope, 'protocol' | 'ts'> & { ts?: string; at?: number };

/** An envelope with `protocol` filled in and `ts` = T0 + `at` ms (default T0). */
export function env({ at = 0, ...fields }: Fields): StoreEnvelope {
  return { protocol: PROTOCOL_VERSION, ts: iso(at), ...fields } as StoreEnvelope;
}

/** The spec §3.8.1 welcome addressed to `me`, listing `others`. */
export function welcome(me: string, others: string[], at = 0, extra: Record<string, unknown> = {}): StoreEnvelope {
  return env({
    id: `welcome-${me}-${at}`,
    at,
    from: 'system:gateway',
    to: [me],
    kind: 'system/welcome',
    payload: {
      you: { id: me, capabilities: [{ kind: 'mcp/*' }, { kind: 'chat' }] },
      participants: others.map((id) => ({ id, capabilities: [{ kind: 'mcp/proposal' }, { kind: 'chat' }] })),
      ...extra,
    },
  });
}

/** A spec §3.2 `tools/call` proposal. */
export function proposal(id: string, from: string, to: string, name: string, args: unknown, at = 0, extra: Record<string, unknown> = {}): StoreEnvelope {
  return env({ id, at, from, to: [to], kind: 'mcp/proposal', payload: { method: 'tools/call', params: { name, arguments: args }, ...extra } });
}

/** A spec §3.2.1 fulfilment of `proposalId`. */
export function fulfilment(id: string, from: string, to: string, proposalId: string, name: string, args: unknown, at = 0): StoreEnvelope {
  return env({
    id,
    at,
    from,
    to: [to],
    kind: 'mcp/request',
    correlation_id: [proposalId],
    payload: { jsonrpc: '2.0', id: 44, method: 'tools/call', params: { name, arguments: args } },
  });
}

/** An `mcp/response` to request `requestId`: `result` or `{error}`. */
export function response(id: string, from: string, to: string, requestId: string, body: { result?: unknown; error?: unknown }, at = 0): StoreEnvelope {
  return env({ id, at, from, to: [to], kind: 'mcp/response', correlation_id: [requestId], payload: { jsonrpc: '2.0', id: 44, ...body } });
}

/** A spec §3.9.4 status report. */
export function status(id: string, from: string, payload: Record<string, unknown>, at = 0): StoreEnvelope {
  // messages_in_context MUST be included (spec §3.9.4); added last so the caller's field order is kept.
  return env({ id, at, from, kind: 'participant/status', payload: 'messages_in_context' in payload ? payload : { ...payload, messages_in_context: 0 } });
}
