/**
 * The one capability matcher (MEW v0.4 §4.1–4.2), shared by the gateway and the SDK's `canSend`.
 * Pure TypeScript, no Node or DOM APIs. Patterns are validated by `normalizeCapability`, compiled
 * once by `compileCapabilities` when a set changes, and compared by `covers` for grants.
 *
 * A capability `{kind, payload?}` allows an envelope when `kind` matches `envelope.kind` and
 * either there is no `payload` pattern or it matches `envelope.payload`. No other envelope field
 * is looked at. A *value* is what the message holds where the pattern looks; it may be missing.
 *
 * | pattern                          | matches the value when                                                  |
 * |----------------------------------|-------------------------------------------------------------------------|
 * | `"chat"` (no `*` `?`, no `!`)    | it is exactly that string                                               |
 * | `"mcp/*"`, `"*_file"`, `"*"`     | it is a string; `*` = any run of characters, `/` included, or none      |
 * | `"read_?"`                       | it is a string; `?` = exactly one UTF-16 code unit                      |
 * | `"/^read_/i"`                    | it is a string the RegExp finds (unanchored unless you write `^`/`$`);  |
 * |                                  | any string `/body/flags` with a non-empty body and flags from `gimsuy`  |
 * |                                  | is a regex, so write a literal path such as `/tmp/` as `"/^\/tmp\/$/"`  |
 * | `"!delete_*"`                    | it is missing, or not a string, or a string the rest does not match     |
 * |                                  | (the rest is a glob or a regex; a second `!` is literal)                |
 * | `["a", "b*"]`                    | any element matches (one-of); `[]` is rejected when loading             |
 * | `42`, `true`, `null`             | it is strictly equal (`===`)                                            |
 * | `{"k": p, ...}`                  | it is an object (not an array, not null) and each key's pattern matches |
 * |                                  | the value's own property `k`, or "missing" if absent; extra keys in     |
 * |                                  | the value are allowed; `{}` matches any object                          |
 * | `{"$.a[*].b": p}`                | JSONPath on the object at this level (`.name`, `.*`, `[0]`, `[*]`,      |
 * |                                  | `['key']`, one `..` descent): some selected value matches `p`; for a    |
 * |                                  | negation `p`, every selected one does; if none is selected, `p` is      |
 * |                                  | tested against "missing"                                                |
 *
 * Consequences worth knowing: a missing key satisfies only a negation (or a one-of holding one);
 * `{"kind":"*"}` allows every envelope; there is no escape for a literal `*`, `?` or leading `!`
 * (use a regex); lookups use own properties only, so `{"constructor": "*"}` never sees what
 * objects inherit. Matching never throws and, except for a `..` key, recurses only as deep as
 * the pattern, which `normalizeCapability` caps at 32 levels.
 *
 * MCPx shorthand strings are accepted wherever a capability is: `"chat"` → `{kind:"chat"}`,
 * `"mcp/request:tools/*"` → `{kind:"mcp/request", payload:{method:"tools/*"}}`,
 * `"mcp/request:tools/call:read_*"` adds `params:{name:"read_*"}` (`params.uri` for `resources/…`),
 * and a `*` segment constrains nothing (`"mcp/proposal:*"` → `{kind:"mcp/proposal"}`).
 *
 * @example
 * import { compileCapabilities, coversAll } from '@/lib/capabilities';
 * const caps = compileCapabilities(['chat', 'mcp/proposal:*', 'mcp/request:tools/call:read_*']);
 * caps.matches({ kind: 'mcp/request', payload: { method: 'tools/call', params: { name: 'read_file' } } }); // true
 * coversAll(caps.patterns, ['mcp/request:tools/call:read_file']); // true: may grant it
 */
export { CapabilityError } from './capability-error';
export type { CapabilityInput, CapabilityMessage, CapabilityPattern, PatternValue } from './capability-pattern';
export { compileCapabilities, compileCapability, type CompiledCapabilities, type MessageMatcher } from './compile-pattern';
export { covers, coversAll } from './covers';
export { normalizeCapabilities, normalizeCapability } from './normalize-capability';
export { containsRegex } from './contains-regex';
