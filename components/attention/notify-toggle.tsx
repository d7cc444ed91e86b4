'use client';

import { useNotifyOptIn } from './use-notify-opt-in';

const LABEL = { unsupported: 'Notifications unavailable', off: 'Notify me', on: 'Notifying', blocked: 'Notifications blocked' } as const;
const TITLE = {
  unsupported: 'This browser cannot show notifications',
  off: 'Show a system notification for each new proposal while this tab is hidden',
  on: 'On: a system notification for each new proposal while this tab is hidden. Click to turn off',
  blocked: 'The browser blocks notifications for this site: allow them in its site settings',
} as const;

/** Opts this browser in to (or out of) system notifications of new proposals; the permission is asked from this click only. */
export function NotifyToggle() {
  const { state, toggle } = useNotifyOptIn();
  return (
    <button
      type="button"
      aria-pressed={state === 'on'}
      disabled={state === 'unsupported' || state === 'blocked'}
      title={TITLE[state]}
      onClick={toggle}
      className="rounded border border-slate-700 px-2 py-1 text-xs text-slate-300 hover:bg-slate-800 focus:outline-none focus-visible:ring-2 focus-visible:ring-sky-400 disabled:opacity-50 aria-pressed:border-sky-700 aria-pressed:text-sky-200"
    >
      {LABEL[state]}
    </button>
  );
}
