'use client';

import { useCallback, useMemo, useRef, useState } from 'react';
import { toast } from 'sonner';
import { SpaceApiError, spaceApi } from '@/components/session/space-api';
import { useVisiblePoll } from '@/components/session/use-visible-poll';
import { seconds, withTimeout } from '@/components/session/with-timeout';
import { clockTime } from '@/components/watch/format-time';
import type { PushFailure, PushSubscriptionList } from '@/lib/protocol';

export type PushState = 'checking' | 'unsupported' | 'off' | 'on' | 'turning-on' | 'turning-off';

/** How long to wait for the service worker (public/sw.js) to be active before saying push cannot work here. */
const SERVICE_WORKER_WAIT_MS = 10_000;
/** How long the person may take to answer the browser's permission prompt. */
const PERMISSION_WAIT_MS = 60_000;
/** How long the server may take to give its VAPID key, and the browser's push service to subscribe. */
const PUBLIC_KEY_WAIT_MS = 10_000;
const PUSH_SERVICE_WAIT_MS = 15_000;
/** How often this device asks the server whether its pushes go through, while push is on. */
const PUSH_HEALTH_POLL_MS = 15_000;
/** How long signing out waits to unregister this device before leaving anyway. */
const UNREGISTER_WAIT_MS = 5_000;

const SUBSCRIPTIONS = '/push/subscriptions';

/** Web Push to this device for the signed-in participant, and whether it works. */
export interface PushSubscriptionControl {
  state: PushState;
  /** While on: why the server's pushes to this device fail (undefined while they go through). */
  failure?: string;
  toggle: () => void;
  /** Removes this device's registration for the space, if any (signing out); never throws. */
  unregister: () => Promise<void>;
}

function supported(): boolean {
  return typeof window !== 'undefined' && 'serviceWorker' in navigator && 'PushManager' in window && typeof Notification !== 'undefined';
}

/** A base64url VAPID key as the bytes `pushManager.subscribe` takes. */
function keyBytes(base64url: string): Uint8Array<ArrayBuffer> {
  const binary = atob(base64url.replace(/-/g, '+').replace(/_/g, '/'));
  return Uint8Array.from(binary, (c) => c.charCodeAt(0));
}

function registration(): Promise<ServiceWorkerRegistration> {
  return withTimeout(navigator.serviceWorker.ready, SERVICE_WORKER_WAIT_MS, `the service worker did not start within ${seconds(SERVICE_WORKER_WAIT_MS)}`);
}

async function browserSubscription(): Promise<PushSubscription | null> {
  return (await registration()).pushManager.getSubscription();
}

/** `3 pushes failed in a row, the latest at 18:40:02: HTTP 503`. */
export function pushFailureText(failure: PushFailure): string {
  const count = failure.failures === 1 ? 'The latest push failed' : `${failure.failures} pushes failed in a row, the latest`;
  return `${count} at ${clockTime(Date.parse(failure.at))}: ${failure.error}`;
}

/**
 * Web Push to this device for the signed-in participant: subscribes the browser's push service with the server's
 * VAPID key and registers the subscription with the gateway for this space, or removes that registration. Push is
 * on when the server lists this device for the space (the browser's one subscription may serve other spaces, so
 * turning off here leaves it to them). Asked only from a click; every step has a bound, and every outcome is told.
 * While on, the server's listing says whether its pushes fail, and the device says so once when they start to.
 */
export function usePushSubscription(space: string, token: string): PushSubscriptionControl {
  const [state, setState] = useState<PushState>('checking');
  const [failure, setFailure] = useState<string>();
  const stateRef = useRef(state);
  stateRef.current = state;

  /** What the server lists of this device; undefined when the browser has no subscription. */
  const registered = useCallback(async () => {
    const subscription = await browserSubscription();
    if (!subscription) return undefined;
    const { subscriptions } = await spaceApi<PushSubscriptionList>(space, token, SUBSCRIPTIONS);
    return { listed: subscriptions.find((s) => s.endpoint === subscription.endpoint) };
  }, [space, token]);

  const check = useCallback(
    async (live: () => boolean) => {
      const now = stateRef.current;
      if (now !== 'checking' && now !== 'on') return;
      if (!supported()) return setState('unsupported');
      let found: Awaited<ReturnType<typeof registered>>;
      try {
        found = await registered();
      } catch {
        if (live() && stateRef.current === 'checking') setState('off'); // no service worker: push cannot be on
        return; // else the next poll asks again
      }
      if (!live() || (stateRef.current !== 'checking' && stateRef.current !== 'on')) return;
      if (!found?.listed) {
        if (stateRef.current === 'on') {
          toast.warning('Push to this device stopped', {
            description: 'The server no longer has this device (its push service said the subscription is gone). Turn push on again to renew it.',
            duration: 15_000,
          });
        }
        setFailure(undefined);
        return setState('off');
      }
      setState('on');
      const text = found.listed.failing ? pushFailureText(found.listed.failing) : undefined;
      setFailure((previous) => {
        if (text && !previous) toast.warning('Pushes to this device are failing', { description: text, duration: 15_000 });
        return text;
      });
    },
    [registered],
  );
  useVisiblePoll(check, PUSH_HEALTH_POLL_MS);

  const turnOn = useCallback(async () => {
    const permission = await withTimeout(
      Notification.requestPermission(),
      PERMISSION_WAIT_MS,
      `no answer to the browser's permission prompt within ${seconds(PERMISSION_WAIT_MS)}`,
    );
    if (permission === 'denied') throw new Error('notifications are blocked for this site: allow them in the browser’s site settings, then try again');
    if (permission !== 'granted') throw new Error('notifications were not allowed');
    const { publicKey } = await withTimeout(
      fetch('/api/push/public-key', { cache: 'no-store' }).then((r) => r.json() as Promise<{ publicKey: string }>),
      PUBLIC_KEY_WAIT_MS,
      `the server did not give its push key within ${seconds(PUBLIC_KEY_WAIT_MS)}`,
    );
    const pushManager = (await registration()).pushManager;
    const message = `the browser’s push service did not answer within ${seconds(PUSH_SERVICE_WAIT_MS)}`;
    const subscription = await withTimeout(
      pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: keyBytes(publicKey) }).catch((e: Error) => {
        throw new Error(`this browser has no push service available (${e.message})`);
      }),
      PUSH_SERVICE_WAIT_MS,
      message,
    );
    await spaceApi(space, token, SUBSCRIPTIONS, { method: 'POST', body: subscription.toJSON() });
  }, [space, token]);

  const turnOff = useCallback(
    async (timeoutMs?: number) => {
      const subscription = await browserSubscription();
      if (!subscription) return;
      await spaceApi(space, token, SUBSCRIPTIONS, { method: 'DELETE', body: { endpoint: subscription.endpoint }, timeoutMs }).catch((e: unknown) => {
        if (!(e instanceof SpaceApiError && e.code === 'unknown_subscription')) throw e; // gone already: off, as asked
      });
    },
    [space, token],
  );

  const toggle = useCallback(() => {
    const now = stateRef.current;
    if (now === 'unsupported') {
      toast.info('Push is unavailable in this browser', { description: 'It has no service worker or push support; notifications from this tab still work.' });
      return;
    }
    if (now !== 'on' && now !== 'off') return;
    const turningOn = now === 'off';
    setState(turningOn ? 'turning-on' : 'turning-off');
    void (turningOn ? turnOn() : turnOff()).then(
      () => {
        setFailure(undefined);
        setState(turningOn ? 'on' : 'off');
        if (turningOn)
          toast.success('Push is on for this device', { description: 'A notification for each new proposal, with Approve and Reject, even with no tab open.' });
        else toast.success('Push is off for this device');
      },
      (e: Error) => {
        setState(turningOn ? 'off' : 'on');
        toast.error(turningOn ? 'Push not turned on' : 'Push not turned off', { description: e.message, duration: 15_000 });
      },
    );
  }, [turnOn, turnOff]);

  const unregister = useCallback(async () => {
    if (stateRef.current === 'on') await turnOff(UNREGISTER_WAIT_MS).catch(() => undefined);
  }, [turnOff]);

  return useMemo(() => ({ state, failure, toggle, unregister }), [state, failure, toggle, unregister]);
}
