'use client';

import { useId } from 'react';
import { INPUT } from './styles';

/** A positive whole number from an optional field: undefined when empty, NaN when not valid. */
export function optionalCount(text: string): number | undefined {
  if (text.trim() === '') return undefined;
  const n = Number(text);
  return Number.isInteger(n) && n > 0 ? n : Number.NaN;
}

/** A positive amount (decimals allowed) from an optional field: undefined when empty, NaN when not valid. */
export function optionalAmount(text: string): number | undefined {
  if (text.trim() === '') return undefined;
  const n = Number(text);
  return Number.isFinite(n) && n > 0 ? n : Number.NaN;
}

/** An optional positive number with its label and a hint that turns into the error when the value is invalid. */
export function NumberField({
  label,
  value,
  onChange,
  hint,
  invalid,
  first = false,
  decimal = false,
}: {
  label: string;
  value: string;
  onChange: (v: string) => void;
  hint: string;
  invalid: boolean;
  first?: boolean;
  /** Amounts (0.5) rather than counts. */
  decimal?: boolean;
}) {
  const hintId = useId();
  return (
    <label className="flex flex-col gap-1 text-sm">
      {label}
      <input
        type="number"
        inputMode={decimal ? 'decimal' : 'numeric'}
        min={decimal ? 0 : 1}
        step={decimal ? 'any' : 1}
        value={value}
        onChange={(e) => onChange(e.target.value)}
        aria-invalid={invalid}
        aria-describedby={hintId}
        data-autofocus={first || undefined}
        className={INPUT}
      />
      <span id={hintId} className={`text-xs ${invalid ? 'text-red-300' : 'text-slate-500'}`}>
        {invalid ? `Enter ${decimal ? 'an amount' : 'a whole number'} above 0, or leave it empty.` : hint}
      </span>
    </label>
  );
}
