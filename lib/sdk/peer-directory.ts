import type { CapabilityMessage, CapabilityPattern, CompiledCapabilities } from '../capabilities';
import type { CapabilityRevokePayload, ParticipantInfo } from '../protocol';
import { compileCapabilitiesSafely, coversSafely } from './safe-capabilities';

/** Another participant of the space, as far as I know it. */
export interface Peer {
  id: string;
  /** Effective capabilities: what the gateway announced, plus grants I saw, minus revocations I saw. */
  capabilities: readonly CapabilityPattern[];
}

interface PeerRecord {
  announced: readonly unknown[];
  /** Grants observed since it was announced, by grant id (the grant envelope's id). */
  grants: Map<string, unknown[]>;
  compiled: CompiledCapabilities;
}

/**
 * Who else is in the space and what each may send, from `system/welcome` and `system/presence`, kept current with
 * the `capability/grant` and `capability/revoke` envelopes routed past me (the gateway accepted them, so they
 * took effect; it announces others' changes no other way). Capabilities are compiled with the gateway's own
 * matcher, once per change.
 *
 * @example
 * const peers = new PeerDirectory();
 * peers.replaceAll([{ id: 'ops', capabilities: [{ kind: 'participant/*' }] }]);
 * peers.allows('ops', { kind: 'participant/pause', payload: {} }); // true
 */
export class PeerDirectory {
  private readonly peers = new Map<string, PeerRecord>();

  /** Replaces everyone with a welcome's `participants` list. */
  replaceAll(participants: readonly ParticipantInfo[]): void {
    this.peers.clear();
    for (const participant of participants) this.join(participant);
  }

  /** Adds (or re-announces) a participant; its grants are forgotten because the announcement is authoritative. */
  join(participant: ParticipantInfo): void {
    const announced = participant.capabilities ?? [];
    this.peers.set(participant.id, { announced, grants: new Map(), compiled: compileCapabilitiesSafely(announced) });
  }

  /** Forgets a participant that left. True if it was known. */
  leave(id: string): boolean {
    return this.peers.delete(id);
  }

  get(id: string): Peer | undefined {
    const record = this.peers.get(id);
    return record && { id, capabilities: record.compiled.patterns };
  }

  list(): Peer[] {
    return [...this.peers.keys()].map((id) => this.get(id)!);
  }

  /** Whether the participant is known and its capabilities allow the message. */
  allows(id: string, message: CapabilityMessage): boolean {
    return this.peers.get(id)?.compiled.matches(message) ?? false;
  }

  /** A `capability/grant` the gateway routed: the recipient holds these too now. */
  applyGrant(recipient: string, grantId: string, capabilities: unknown[]): void {
    const record = this.peers.get(recipient);
    if (!record) return;
    record.grants.set(grantId, capabilities);
    this.recompile(record);
  }

  /**
   * A `capability/revoke` the gateway routed: by grant id, or by patterns, which remove every capability they
   * cover, announced or granted (the gateway's own rule).
   */
  applyRevoke(revoke: CapabilityRevokePayload): void {
    const record = this.peers.get(revoke.recipient);
    if (!record) return;
    if (revoke.grant_id !== undefined) record.grants.delete(revoke.grant_id);
    const patterns = revoke.capabilities;
    if (patterns) {
      const kept = (capabilities: readonly unknown[]) => capabilities.filter((capability) => !coversSafely(patterns, capability));
      record.announced = kept(record.announced);
      for (const [grantId, granted] of record.grants) {
        const left = kept(granted);
        if (left.length > 0) record.grants.set(grantId, left);
        else record.grants.delete(grantId);
      }
    }
    this.recompile(record);
  }

  private recompile(record: PeerRecord): void {
    record.compiled = compileCapabilitiesSafely([...record.announced, ...[...record.grants.values()].flat()]);
  }
}
