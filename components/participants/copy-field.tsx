'use client';

import { CopyButton } from '@/components/ui/copy-button';
import { INPUT } from './styles';

/**
 * A value to take away (a token shown once, a URL): read-only, selected on focus, with its copy button (`copy` names
 * it, "Copy token"). A `secret` reads in amber.
 */
export function CopyField({ label, value, copy, secret = false }: { label: string; value: string; copy: string; secret?: boolean }) {
  return (
    <div className="flex flex-col gap-1 text-sm">
      <label className="flex flex-col gap-1">
        {label}
        <input readOnly value={value} onFocus={(e) => e.currentTarget.select()} className={`${INPUT} font-mono text-xs ${secret ? 'text-amber-200' : ''}`} />
      </label>
      <div>
        <CopyButton value={value}>{copy}</CopyButton>
      </div>
    </div>
  );
}
