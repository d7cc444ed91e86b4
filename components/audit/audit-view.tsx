'use client';

import { createContext, useCallback, useContext, useMemo, useState, type ReactNode } from 'react';
import { useIsOperator } from '@/components/session/use-is-operator';
import { EMPTY_AUDIT_FILTER, type AuditFilter } from './audit-api-client';
import { AuditDialog } from './audit-dialog';

interface AuditViewContext {
  /** Whether I look like an operator (the server decides: this only hides what would be refused). */
  mayRead: boolean;
  open(filter?: Partial<AuditFilter>): void;
}

const Context = createContext<AuditViewContext>({ mayRead: false, open: () => undefined });

/** Opens the audit log from anywhere in the control room: the header, the command palette, a proposal's history. */
export function useAuditView(): AuditViewContext {
  return useContext(Context);
}

/**
 * Owns the audit dialog. Operators (who may grant any capability, the audit API's rule) see the entry points;
 * others do not, since the server would refuse them anyway.
 */
export function AuditViewProvider({ children }: { children: ReactNode }) {
  const mayRead = useIsOperator();
  const [filter, setFilter] = useState<AuditFilter>();
  const open = useCallback((initial: Partial<AuditFilter> = {}) => setFilter({ ...EMPTY_AUDIT_FILTER, ...initial }), []);
  const value = useMemo(() => ({ mayRead, open }), [mayRead, open]);
  return (
    <Context value={value}>
      {children}
      {mayRead && <AuditDialog open={filter !== undefined} onClose={() => setFilter(undefined)} initial={filter ?? EMPTY_AUDIT_FILTER} />}
    </Context>
  );
}
