'use client';

import { useNotifyOptIn } from './use-notify-opt-in';

export const NOTIFY_LABEL = { unsupported: 'Notifications unavailable', off: 'Notify me', on: 'Notifying', blocked: 'Notifications blocked' } as const;
const TITLE = {
  unsupported: 'This browser cannot show notifications',
  off: 'Show a system notification for each new proposal while this tab is hidden',
  on: 'On: a system notification for each new proposal while this tab is hidden. Click to turn off',
  blocked: 'The browser blocks notifications for this site: click to see how to allow them',
} as const;

/**
 * Opts this browser in to (or out of) system notifications of new proposals; the permission is asked from this
 * click only. Blocked or unavailable, it stays clickable and says why (a disabled button could only explain itself
 * in a tooltip).
 */
export function NotifyToggle() {
  const { state, toggle } = useNotifyOptIn();
  return (
    <button
      type="button"
      aria-pressed={state === 'on'}
      title={TITLE[state]}
      onClick={toggle}
      className={`rounded border px-2 py-1 text-xs hover:bg-slate-800 focus:outline-none focus-visible:ring-2 focus-visible:ring-sky-400 aria-pressed:border-sky-700 aria-pressed:text-sky-200 ${
        state === 'blocked' || state === 'unsupported' ? 'border-slate-800 text-slate-500' : 'border-slate-700 text-slate-300'
      }`}
    >
      {NOTIFY_LABEL[state]}
    </button>
  );
}
