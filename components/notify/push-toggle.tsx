'use client';

import { toast } from 'sonner';
import { useAlertHealth } from './alert-health';
import type { PushState } from './use-push-subscription';

export const PUSH_LABEL: Record<PushState, string> = {
  checking: 'Push to this device',
  unsupported: 'Push unavailable',
  off: 'Push to this device',
  on: 'Pushing to this device',
  'turning-on': 'Turning push on…',
  'turning-off': 'Turning push off…',
};
const TITLE: Record<PushState, string> = {
  checking: 'Checking this device',
  unsupported: 'This browser cannot receive Web Push: click to learn more',
  off: 'Receive a notification for each new proposal on this device, even with no tab open, with Approve and Reject',
  on: 'On: this device receives a notification for each new proposal. Click to turn off',
  'turning-on': 'Asking the browser, its push service and the server',
  'turning-off': 'Asking the server to stop',
};

/**
 * Subscribes this device to Web Push notifications of the space's proposals (or unsubscribes it). Says when the
 * server's pushes to it fail: the button turns red ("Push failing"), and a click tells why, with a way to turn it off.
 */
export function PushToggle() {
  const { push } = useAlertHealth();
  const { state, failure } = push;
  const failing = state === 'on' && failure !== undefined;
  const click = () => {
    if (!failing) return push.toggle();
    toast.warning('Pushes to this device are failing', {
      description: `${failure} The server tries again with each new proposal.`,
      action: { label: 'Turn push off', onClick: push.toggle },
      duration: 15_000,
    });
  };
  return (
    <button
      type="button"
      aria-pressed={state === 'on'}
      disabled={state === 'checking' || state === 'turning-on' || state === 'turning-off'}
      title={failing ? `Failing: ${failure}` : TITLE[state]}
      onClick={click}
      className={`rounded border px-2 py-1 text-xs hover:bg-slate-800 focus:outline-none focus-visible:ring-2 focus-visible:ring-sky-400 disabled:opacity-50 ${
        failing ? 'border-red-700 text-red-200' : 'border-slate-700 text-slate-300 aria-pressed:border-sky-700 aria-pressed:text-sky-200'
      }`}
    >
      {failing ? 'Push failing' : PUSH_LABEL[state]}
    </button>
  );
}
