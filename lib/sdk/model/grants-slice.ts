import { covers } from '../../capabilities';
import type { Envelope, WireCapability } from '../../protocol';
import { writable } from './collection-utils';
import type { ReduceContext } from './reduce-context';
import { correlationIds, type StoreEnvelope } from './store-envelope';

/** How a grant was revoked. */
export interface GrantRevocation {
  /** The `capability/revoke` envelope. */
  id: string;
  by: string;
  at: number;
  reason?: string;
  /** `grant_id`: named directly; `capabilities`: every granted capability was covered by the revoked patterns. */
  how: 'grant_id' | 'capabilities';
}

/** A `capability/grant` (spec §3.6.1): its envelope id is the grant id. */
export interface GrantState {
  id: string;
  granter: string;
  recipient: string;
  capabilities: readonly WireCapability[];
  reason?: string;
  at: number;
  /** Capabilities of this grant removed by pattern revocations so far (all of them ⇒ `revoked`). */
  revokedCapabilities: readonly WireCapability[];
  revoked?: GrantRevocation;
  /** The recipient's `capability/grant-ack` (spec §3.6.3). */
  ack?: { id: string; status: string; at: number };
}

/** Grants by grant id, in the order seen. */
export interface GrantsState {
  byId: ReadonlyMap<string, GrantState>;
}

/** A fresh grants slice. */
export function initialGrants(): GrantsState {
  return { byId: new Map() };
}

/** Applies grants, revocations (by id or by pattern) and grant acknowledgements. */
export function reduceGrants(state: GrantsState, envelope: StoreEnvelope, ctx: ReduceContext): GrantsState {
  const byId = writable(state.byId);
  switch (envelope.kind) {
    case 'capability/grant': {
      const { recipient, capabilities, reason } = envelope.payload;
      if (byId.has(envelope.id)) return state;
      byId.set(envelope.id, {
        id: envelope.id,
        granter: envelope.from,
        recipient,
        capabilities,
        reason,
        at: ctx.at,
        revokedCapabilities: [],
      });
      return { byId };
    }
    case 'capability/revoke':
      return applyRevoke(byId, envelope, ctx) ? { byId } : state;
    case 'capability/grant-ack': {
      let changed = false;
      for (const id of correlationIds(envelope)) {
        const grant = byId.get(id);
        // Only the recipient can accept what it was given.
        if (grant && grant.recipient === envelope.from) {
          byId.set(id, { ...grant, ack: { id: envelope.id, status: envelope.payload.status, at: ctx.at } });
          changed = true;
        }
      }
      return changed ? { byId } : state;
    }
    default:
      return state;
  }
}

function applyRevoke(byId: Map<string, GrantState>, envelope: Envelope<'capability/revoke'>, ctx: ReduceContext): boolean {
  const { recipient, reason, grant_id: grantId } = envelope.payload;
  let changed = false;
  if (grantId) {
    const grant = byId.get(grantId);
    if (grant && !grant.revoked) {
      byId.set(grantId, { ...grant, revoked: { id: envelope.id, by: envelope.from, at: ctx.at, reason, how: 'grant_id' } });
      changed = true;
    }
  }
  const patterns = envelope.payload.capabilities;
  if (patterns && patterns.length > 0) {
    for (const grant of byId.values()) {
      if (grant.revoked || grant.recipient !== recipient) continue;
      const newlyCovered = grant.capabilities.filter((c) => !grant.revokedCapabilities.includes(c) && safeCovers(patterns, c));
      if (newlyCovered.length === 0) continue;
      const revokedCapabilities = [...grant.revokedCapabilities, ...newlyCovered];
      const all = revokedCapabilities.length >= grant.capabilities.length;
      byId.set(grant.id, {
        ...grant,
        revokedCapabilities,
        revoked: all ? { id: envelope.id, by: envelope.from, at: ctx.at, reason, how: 'capabilities' } : undefined,
      });
      changed = true;
    }
  }
  return changed;
}

// Malformed patterns from the wire must not break the store: they simply cover nothing.
function safeCovers(held: readonly WireCapability[], wanted: WireCapability): boolean {
  try {
    return covers(held as Parameters<typeof covers>[0], wanted as Parameters<typeof covers>[1]);
  } catch {
    return false;
  }
}

/** Capabilities of a grant still in force (all but those revoked). */
export function activeCapabilities(grant: GrantState): readonly WireCapability[] {
  if (grant.revoked) return [];
  return grant.revokedCapabilities.length === 0 ? grant.capabilities : grant.capabilities.filter((c) => !grant.revokedCapabilities.includes(c));
}
