'use client';

import { useCallback } from 'react';
import { useAlertHealth } from '@/components/notify/alert-health';
import { leaveNotice } from '@/components/session/page-notice';
import { forgetToken } from '@/components/session/session-token';
import { useSpaceSession } from '@/components/session/space-session';

/**
 * Signs this browser out of the space: this device's push registration for it is removed (within a few seconds, or
 * left), the connection closed, the kept sign-in forgotten, and the home page says it was done.
 */
export function useSignOut(): () => void {
  const { space, participant } = useSpaceSession();
  const { push } = useAlertHealth();
  return useCallback(() => {
    const pushWasOn = push.state === 'on';
    void push.unregister().finally(() => {
      participant.disconnect();
      forgetToken(space);
      leaveNotice(`Signed out of ${space}${pushWasOn ? '; this device no longer receives its pushes' : ''}`);
      window.location.assign('/');
    });
  }, [space, participant, push]);
}
