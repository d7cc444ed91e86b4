import { activeCapabilities, grantList, memoSelector, type GrantState, type SpaceState } from '@/lib/store';
import { isRecordValue } from './json-value';

/** An active grant that lets its recipient call named tools directly ("always allow"). */
export interface ToolGrant {
  grant: GrantState;
  tools: readonly string[];
}

// `{kind:'mcp/request', payload:{method:'tools/call', params:{name}}}`: the shape "Always allow" grants.
function toolNameOf(capability: unknown): string | undefined {
  if (!isRecordValue(capability) || capability.kind !== 'mcp/request' || !isRecordValue(capability.payload)) return undefined;
  const { method, params } = capability.payload;
  return method === 'tools/call' && isRecordValue(params) && typeof params.name === 'string' ? params.name : undefined;
}

/** Active grants made only of per-tool `tools/call` capabilities, newest first. Other grants belong to operators. */
export const activeToolGrants = memoSelector(
  (s: SpaceState) => [s.grants],
  (s): readonly ToolGrant[] =>
    grantList(s, undefined, false).flatMap((grant) => {
      const names = activeCapabilities(grant).map(toolNameOf);
      return names.length > 0 && names.every((n) => n !== undefined) ? [{ grant, tools: names as string[] }] : [];
    }),
);

const keyOf = (recipient: string, tool: string) => `${recipient}\u0000${tool}`;

/** Recipient + tool → the newest active grant letting the recipient call it. */
export const toolGrantIndex = memoSelector(
  (s: SpaceState) => [s.grants],
  (s): ReadonlyMap<string, GrantState> => {
    const index = new Map<string, GrantState>();
    for (const { grant, tools } of [...activeToolGrants(s)].reverse()) for (const tool of tools) index.set(keyOf(grant.recipient, tool), grant);
    return index;
  },
);

/** The active grant letting `recipient` call `tool` directly, if any. */
export function toolGrantFor(s: SpaceState, recipient: string, tool: string | undefined): GrantState | undefined {
  return tool === undefined ? undefined : toolGrantIndex(s).get(keyOf(recipient, tool));
}
