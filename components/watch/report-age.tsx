'use client';

import { useSpace } from '@/components/session/space-session';
import { ago } from './format-time';

/** "12 s ago", moved by the store's clock (once a second) in this leaf only, not in the panel around it. */
export function ReportAge({ at }: { at: number }) {
  const clock = useSpace((s) => s.clock);
  return <>{ago(at, Math.max(clock, at))}</>;
}
