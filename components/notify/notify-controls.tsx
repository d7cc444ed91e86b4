'use client';

import { failingWebhooksText, useAlertHealth } from './alert-health';
import { PushToggle } from './push-toggle';

/**
 * The header's notification controls: Web Push to this device, and for operators the space's webhooks, the button
 * turning red with how many fail (a failing webhook is flagged here, not only inside its dialog).
 */
export function NotifyControls() {
  const { operator, failingWebhooks, openWebhooks } = useAlertHealth();
  return (
    <>
      <PushToggle />
      {operator && (
        <button
          type="button"
          onClick={openWebhooks}
          title={failingWebhooks > 0 ? `${failingWebhooksText(failingWebhooks)}: open to see their deliveries and send a test` : undefined}
          className={`rounded border px-2 py-1 text-xs hover:bg-slate-800 focus:outline-none focus-visible:ring-2 focus-visible:ring-sky-400 ${
            failingWebhooks > 0 ? 'border-red-700 bg-red-950/50 text-red-200' : 'border-slate-700 text-slate-300'
          }`}
        >
          Webhooks
          {failingWebhooks > 0 && (
            <span data-testid="webhooks-failing" className="ml-1 font-medium">
              · {failingWebhooksText(failingWebhooks)}
            </span>
          )}
        </button>
      )}
    </>
  );
}
