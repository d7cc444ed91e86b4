'use client';

import { useCallback, useEffect, useState } from 'react';
import { spaceApi } from '@/components/session/space-api';

export type PushState = 'checking' | 'unsupported' | 'off' | 'on' | 'busy';

/** How long to wait for the service worker (public/sw.js) to be active before saying push cannot work here. */
const SERVICE_WORKER_WAIT_MS = 10_000;

const SUBSCRIPTIONS = '/push/subscriptions';

function supported(): boolean {
  return typeof window !== 'undefined' && 'serviceWorker' in navigator && 'PushManager' in window && typeof Notification !== 'undefined';
}

/** A base64url VAPID key as the bytes `pushManager.subscribe` takes. */
function keyBytes(base64url: string): Uint8Array<ArrayBuffer> {
  const binary = atob(base64url.replace(/-/g, '+').replace(/_/g, '/'));
  return Uint8Array.from(binary, (c) => c.charCodeAt(0));
}

async function registration(): Promise<ServiceWorkerRegistration> {
  const timeout = new Promise<never>((_, reject) => setTimeout(() => reject(new Error('the service worker did not start')), SERVICE_WORKER_WAIT_MS));
  return Promise.race([navigator.serviceWorker.ready, timeout]);
}

/**
 * Web Push to this device for the signed-in participant: subscribes the browser's push service with the server's
 * VAPID key and registers the subscription with the gateway, or removes both. Asked only from a click.
 */
export function usePushSubscription(space: string, token: string): { state: PushState; error?: string; toggle: () => void } {
  const [state, setState] = useState<PushState>('checking');
  const [error, setError] = useState<string>();

  useEffect(() => {
    if (!supported()) return setState('unsupported');
    let live = true;
    void registration()
      .then((r) => r.pushManager.getSubscription())
      .then(
        (existing) => live && setState(existing ? 'on' : 'off'),
        () => live && setState('off'),
      );
    return () => {
      live = false;
    };
  }, []);

  const subscribe = useCallback(async () => {
    if ((await Notification.requestPermission()) !== 'granted') throw new Error('notifications are not allowed for this site');
    const { publicKey } = await (await fetch('/api/push/public-key', { cache: 'no-store' })).json();
    const pushManager = (await registration()).pushManager;
    let subscription: PushSubscription;
    try {
      subscription = await pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: keyBytes(publicKey) });
    } catch (e) {
      throw new Error(`this browser has no push service available (${(e as Error).message})`);
    }
    await spaceApi(space, token, SUBSCRIPTIONS, { method: 'POST', body: subscription.toJSON() });
  }, [space, token]);

  const unsubscribe = useCallback(async () => {
    const subscription = await (await registration()).pushManager.getSubscription();
    if (!subscription) return;
    await spaceApi(space, token, SUBSCRIPTIONS, { method: 'DELETE', body: { endpoint: subscription.endpoint } }).catch(() => undefined); // gone already
    await subscription.unsubscribe();
  }, [space, token]);

  const toggle = useCallback(() => {
    if (state !== 'on' && state !== 'off') return;
    const turningOn = state === 'off';
    setState('busy');
    setError(undefined);
    void (turningOn ? subscribe() : unsubscribe()).then(
      () => setState(turningOn ? 'on' : 'off'),
      (e: Error) => {
        setError(e.message);
        setState(turningOn ? 'off' : 'on');
      },
    );
  }, [state, subscribe, unsubscribe]);

  return { state, error, toggle };
}
