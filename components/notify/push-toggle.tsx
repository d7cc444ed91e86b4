'use client';

import { useSpaceSession } from '@/components/session/space-session';
import { usePushSubscription } from './use-push-subscription';

const LABEL = {
  checking: 'Push to this device',
  unsupported: 'Push unavailable',
  off: 'Push to this device',
  on: 'Pushing to this device',
  busy: 'Push to this device…',
} as const;
const TITLE = {
  checking: 'Checking this device',
  unsupported: 'This browser cannot receive Web Push',
  off: 'Receive a notification for each new proposal on this device, even with no tab open, with Approve and Reject',
  on: 'On: this device receives a notification for each new proposal. Click to turn off',
  busy: 'Working…',
} as const;

/** Subscribes this device to Web Push notifications of the space's proposals (or unsubscribes it). */
export function PushToggle() {
  const { space, token } = useSpaceSession();
  const { state, error, toggle } = usePushSubscription(space, token);
  return (
    <span className="flex items-center gap-2">
      <button
        type="button"
        aria-pressed={state === 'on'}
        disabled={state !== 'on' && state !== 'off'}
        title={TITLE[state]}
        onClick={toggle}
        className="rounded border border-slate-700 px-2 py-1 text-xs text-slate-300 hover:bg-slate-800 focus:outline-none focus-visible:ring-2 focus-visible:ring-sky-400 disabled:opacity-50 aria-pressed:border-sky-700 aria-pressed:text-sky-200"
      >
        {LABEL[state]}
      </button>
      {error && (
        <span role="alert" className="max-w-xs text-xs text-rose-300">
          Push not turned on: {error}
        </span>
      )}
    </span>
  );
}
