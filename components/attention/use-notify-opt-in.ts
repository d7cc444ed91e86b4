'use client';

import { useCallback, useEffect, useState } from 'react';
import { toast } from 'sonner';
import { useStoredState } from '@/components/session/use-stored-state';

/** What to do when the browser blocks this site's notifications: said on a click, not hidden in a tooltip. */
export const BLOCKED_HELP =
  'The browser blocks notifications for this site. Allow them in its site settings (the icon left of the address), then reload this page.';

export type NotifyState = 'unsupported' | 'off' | 'on' | 'blocked';

/**
 * Whether this browser shows system notifications for new proposals: the person's own choice (kept in
 * localStorage, so it can be turned off without revoking the permission) and the browser's permission, asked only
 * from a click, never on load. Every click says what happened, blocked and unavailable included.
 */
export function useNotifyOptIn(): { state: NotifyState; enabled: boolean; toggle: () => void } {
  const [wanted, setWanted] = useStoredState<boolean>('mew.notify', false);
  const [permission, setPermission] = useState<NotificationPermission | 'unsupported'>('default');
  useEffect(() => setPermission(typeof Notification === 'undefined' ? 'unsupported' : Notification.permission), []);

  const state: NotifyState =
    permission === 'unsupported' ? 'unsupported' : permission === 'denied' ? 'blocked' : wanted && permission === 'granted' ? 'on' : 'off';
  const toggle = useCallback(() => {
    if (state === 'unsupported') return void toast.info('This browser cannot show notifications', { description: 'Push to this device may still work.' });
    if (state === 'blocked') return void toast.warning('Notifications are blocked', { description: BLOCKED_HELP, duration: 15_000 });
    if (state === 'on') {
      setWanted(() => false);
      return void toast.success('Notifications off', { description: 'This tab no longer shows a system notification for new proposals.' });
    }
    void Notification.requestPermission().then(
      (answer) => {
        setPermission(answer);
        if (answer === 'granted') {
          setWanted(() => true);
          toast.success('Notifications on', { description: 'A system notification for each new proposal while this tab is hidden.' });
        } else if (answer === 'denied') toast.warning('Notifications are blocked', { description: BLOCKED_HELP, duration: 15_000 });
        else toast.info('Notifications not turned on', { description: 'The browser’s prompt was dismissed; click again to be asked again.' });
      },
      (e: Error) => toast.error('Notifications not turned on', { description: e.message }),
    );
  }, [state, setWanted]);
  return { state, enabled: state === 'on', toggle };
}
