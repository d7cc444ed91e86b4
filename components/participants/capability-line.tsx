'use client';

import type { WireCapability } from '@/lib/protocol';
import { capabilityLabel } from './capability-templates';

/** One capability: its kind, then its payload pattern as compact JSON (full text on hover; wraps on phones). */
export function CapabilityLine({ capability, struck = false }: { capability: WireCapability; struck?: boolean }) {
  const { kind, payload } = capabilityLabel(capability);
  return (
    <span
      className={`min-w-0 break-words font-mono text-xs ${struck ? 'text-slate-500 line-through' : 'text-slate-200'}`}
      title={payload ? `${kind} ${payload}` : kind}
    >
      <span className={struck ? '' : 'text-sky-300'}>{kind}</span>
      {/* JSON has no spaces to wrap at */}
      {payload && <span className="break-all text-slate-400"> {payload}</span>}
    </span>
  );
}
