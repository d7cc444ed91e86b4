import { z } from 'zod';

/**
 * A capability pattern object (spec §4.1): matched against an envelope's `kind` and `payload`.
 * Semantics (wildcards, negation, JSONPath, regex) belong to `lib/capabilities`; here only the shape.
 */
export const capabilityPatternObjectSchema = z.looseObject({
  /** Kind pattern, e.g. `"mcp/*"` or `"chat"`; an array means one-of. */
  kind: z.union([z.string(), z.array(z.string())], {
    error: 'expected a kind pattern string or an array of them',
  }),
  /** Nested patterns matched against the payload's fields. */
  payload: z.unknown().optional(),
});

/**
 * A capability as it may appear on the wire: the JSON pattern object, or MCPx shorthand such as
 * `"mcp/request:tools/*"`, which the gateway normalises to an object.
 */
export const capabilityPatternSchema = z.union([z.string().min(1), capabilityPatternObjectSchema], {
  error: 'expected a capability: an object with "kind", or an MCPx string like "mcp/request:tools/*"',
});

export type CapabilityPatternObject = z.infer<typeof capabilityPatternObjectSchema>;
/** A capability as sent on the wire (not yet normalised); `lib/capabilities` `CapabilityPattern` is the normalised form. */
export type WireCapability = z.infer<typeof capabilityPatternSchema>;
