'use client';

import { useCallback, useEffect, useState } from 'react';
import { useStoredState } from '@/components/session/use-stored-state';

export type NotifyState = 'unsupported' | 'off' | 'on' | 'blocked';

/**
 * Whether this browser shows system notifications for new proposals: the person's own choice (kept in
 * localStorage, so it can be turned off without revoking the permission) and the browser's permission, asked only
 * from a click, never on load.
 */
export function useNotifyOptIn(): { state: NotifyState; enabled: boolean; toggle: () => void } {
  const [wanted, setWanted] = useStoredState<boolean>('mew.notify', false);
  const [permission, setPermission] = useState<NotificationPermission | 'unsupported'>('default');
  useEffect(() => setPermission(typeof Notification === 'undefined' ? 'unsupported' : Notification.permission), []);

  const state: NotifyState =
    permission === 'unsupported' ? 'unsupported' : permission === 'denied' ? 'blocked' : wanted && permission === 'granted' ? 'on' : 'off';
  const toggle = useCallback(() => {
    if (state === 'on') return setWanted(() => false);
    if (state !== 'off') return;
    void Notification.requestPermission().then((answer) => {
      setPermission(answer);
      if (answer === 'granted') setWanted(() => true);
    });
  }, [state, setWanted]);
  return { state, enabled: state === 'on', toggle };
}
