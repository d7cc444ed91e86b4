'use client';

import { useState } from 'react';
import { useIsOperator } from '@/components/session/use-is-operator';
import { PushToggle } from './push-toggle';
import { WebhooksDialog } from './webhooks-dialog';

/** The header's notification controls: Web Push to this device, and for operators the space's webhooks. */
export function NotifyControls() {
  const operator = useIsOperator();
  const [webhooksOpen, setWebhooksOpen] = useState(false);
  return (
    <>
      <PushToggle />
      {operator && (
        <button
          type="button"
          onClick={() => setWebhooksOpen(true)}
          className="rounded border border-slate-700 px-2 py-1 text-xs text-slate-300 hover:bg-slate-800 focus:outline-none focus-visible:ring-2 focus-visible:ring-sky-400"
        >
          Webhooks
        </button>
      )}
      <WebhooksDialog open={webhooksOpen} onClose={() => setWebhooksOpen(false)} />
    </>
  );
}
