import { covers, type CapabilityInput } from '@/lib/capabilities';
import { activeCapabilities, type GrantState } from '@/lib/store';
import type { WireCapability } from '@/lib/protocol';
import { capabilityKey } from './capability-templates';
import type { PatternRevocation } from './pattern-revocations';

export interface BaseCapability {
  capability: WireCapability;
  /** A revoke-by-pattern that covers it, seen after its snapshot. */
  revokedBy?: PatternRevocation;
}

/** A participant's capabilities as operators read them: base, granted (with who granted), revoked. */
export interface CapabilitySummary {
  base: readonly BaseCapability[];
  /** Grants in force (only the capabilities still in force). */
  granted: readonly { grant: GrantState; capabilities: readonly WireCapability[] }[];
  /** Grants revoked in whole or in part (the capabilities taken back). */
  revoked: readonly { grant: GrantState; capabilities: readonly WireCapability[] }[];
}

function safeCovers(patterns: readonly WireCapability[], capability: WireCapability): boolean {
  try {
    return covers(patterns as CapabilityInput[], capability as CapabilityInput);
  } catch {
    return false; // a malformed pattern from the wire covers nothing
  }
}

/**
 * `reported` is the effective set as of the last welcome/join (base + grants then in force); `grants` are the
 * recipient's grants seen since. Whatever a grant accounts for is shown under the grant, the rest is base.
 */
export function summarizeCapabilities(
  reported: readonly WireCapability[],
  grants: readonly GrantState[],
  revocations: readonly PatternRevocation[],
): CapabilitySummary {
  const fromGrants = new Set(grants.flatMap((g) => g.capabilities.map(capabilityKey)));
  const base = reported
    .filter((c) => !fromGrants.has(capabilityKey(c)))
    .map((capability) => ({ capability, revokedBy: revocations.find((r) => safeCovers(r.patterns, capability)) }));
  const granted = grants.filter((g) => !g.revoked).map((grant) => ({ grant, capabilities: activeCapabilities(grant) }));
  const revoked = grants
    .filter((g) => g.revoked || g.revokedCapabilities.length > 0)
    .map((grant) => ({ grant, capabilities: grant.revoked ? grant.capabilities : grant.revokedCapabilities }));
  return { base, granted, revoked };
}
