'use client';

import type { WireCapability } from '@/lib/protocol';
import { capabilityLabel } from './capability-templates';

/** What a kind lets a participant do, in plain words (a kind not listed is shown as it is). */
const KIND_WORDS: Record<string, string> = {
  '*': 'send anything',
  chat: 'send chat messages',
  'chat/*': 'chat, acknowledge and cancel chats',
  'mcp/proposal': 'propose tool calls for someone to approve',
  'mcp/request': 'send MCP requests directly',
  'mcp/response': 'answer MCP requests',
  'mcp/*': 'send any MCP message directly',
  'mcp/withdraw': 'withdraw its proposals',
  'mcp/reject': 'reject proposals',
  'reasoning/*': 'reason out loud',
  'participant/*': 'control participants (pause, restart, shut down…)',
  'participant/status': 'report its status',
  'capability/*': 'grant and revoke capabilities',
  'capability/grant': 'grant capabilities',
  'capability/revoke': 'revoke capabilities',
  'space/*': 'invite and kick participants',
  'stream/*': 'open and use streams',
};

/** A pattern value in words: `read_file`, `read_file or write_file`, `any matching /^read_/`. */
function valueWords(value: unknown): string | undefined {
  if (typeof value === 'string') return value === '*' ? 'any tool' : value;
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return value.join(' or ');
  return undefined;
}

/** "call read_file directly", "propose tool calls for someone to approve", else undefined (shown raw). */
export function capabilityWords(capability: WireCapability): string | undefined {
  if (typeof capability === 'string') return KIND_WORDS[capability];
  const kind = Array.isArray(capability.kind) ? undefined : String(capability.kind);
  if (!kind) return undefined;
  const payload = capability.payload as { method?: unknown; params?: { name?: unknown } } | undefined;
  if (kind === 'mcp/request' && payload) {
    const tool = valueWords(payload.params?.name);
    if (payload.method === 'tools/call') return tool ? `call ${tool} directly, without approval` : 'call any tool directly, without approval';
    const method = valueWords(payload.method);
    if (method && !payload.params) return `send ${method} requests`;
    return undefined;
  }
  return payload === undefined ? KIND_WORDS[kind] : undefined;
}

/**
 * One capability in plain words ("call read_file directly, without approval"), its exact pattern on hover; a pattern
 * with no words for it shows its kind and payload as compact JSON (wrapping on phones).
 */
export function CapabilityLine({ capability, struck = false }: { capability: WireCapability; struck?: boolean }) {
  const { kind, payload } = capabilityLabel(capability);
  const words = capabilityWords(capability);
  const exact = payload ? `${kind} ${payload}` : kind;
  if (words) {
    return (
      <span className={`min-w-0 break-words text-xs ${struck ? 'text-slate-500 line-through' : 'text-slate-200'}`} title={`Pattern: ${exact}`}>
        {words}
      </span>
    );
  }
  return (
    <span className={`min-w-0 break-words font-mono text-xs ${struck ? 'text-slate-500 line-through' : 'text-slate-200'}`} title={exact}>
      <span className={struck ? '' : 'text-sky-300'}>{kind}</span>
      {/* JSON has no spaces to wrap at */}
      {payload && <span className="break-all text-slate-400"> {payload}</span>}
    </span>
  );
}
