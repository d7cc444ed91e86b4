import { compileCapabilities, covers, type CapabilityInput, type CompiledCapabilities } from '../capabilities';

/**
 * Compiles capabilities that came over the wire. The gateway only shape-checks what it announces, and another
 * gateway may use patterns our matcher refuses: such a list allows nothing rather than breaking the caller.
 *
 * @example
 * compileCapabilitiesSafely([{ kind: 'chat' }]).matches({ kind: 'chat' }); // true
 * compileCapabilitiesSafely([{ kind: 'x', payload: { a: '/[/' } }]).matches({ kind: 'x' }); // false
 */
export function compileCapabilitiesSafely(capabilities: readonly unknown[]): CompiledCapabilities {
  try {
    return compileCapabilities(capabilities as CapabilityInput[]);
  } catch {
    return compileCapabilities([]);
  }
}

/**
 * `covers` for wire capabilities: false when either side is not a valid pattern.
 *
 * @example
 * coversSafely([{ kind: 'mcp/*' }], { kind: 'mcp/request' }); // true
 */
export function coversSafely(held: readonly unknown[], wanted: unknown): boolean {
  try {
    return covers(held as CapabilityInput[], wanted as CapabilityInput);
  } catch {
    return false;
  }
}
