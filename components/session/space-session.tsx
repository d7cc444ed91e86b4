'use client';

import { createContext, useContext, useEffect, useState, type ReactNode } from 'react';
import { useStore } from 'zustand';
import { MEWParticipant } from '@/lib/sdk/mew-participant';
import { createSpaceStore, startClock, type SpaceStore, type SpaceStoreState } from '@/lib/store';
import type { StoreEnvelope } from '@/lib/store';
import { createEnvelopeBatcher } from './envelope-batcher';

/** One signed-in space: the browser's own participant and the store derived from what it sees. */
export interface SpaceSession {
  space: string;
  token: string;
  participant: MEWParticipant;
  store: SpaceStore;
}

const SpaceSessionContext = createContext<SpaceSession | null>(null);

/**
 * Connects the browser participant to `space` (in an effect: sockets never open during server rendering),
 * feeds every envelope, stream frame and status change into a fresh store, and catches up from the gateway's
 * history after each (re)connect so a reload never loses a pending proposal.
 */
export function SpaceSessionProvider({ space, token, children }: { space: string; token: string; children: ReactNode }) {
  const [session, setSession] = useState<SpaceSession>();

  useEffect(() => {
    const store = createSpaceStore();
    const gateway = `${window.location.protocol === 'https:' ? 'wss' : 'ws'}://${window.location.host}/ws`;
    const participant = new MEWParticipant({ gateway, space, token });
    const client = participant.client;
    const batcher = createEnvelopeBatcher(store);
    let caughtUpTo: string | undefined;
    const catchUp = async (me: string) => {
      const since = caughtUpTo ? `&since=${encodeURIComponent(caughtUpTo)}` : '';
      caughtUpTo = new Date().toISOString();
      const res = await fetch(`/participants/${encodeURIComponent(me)}/messages?space=${encodeURIComponent(space)}${since}`, {
        headers: { Authorization: `Bearer ${token}` },
        cache: 'no-store',
      });
      if (!res.ok) return;
      const { messages } = (await res.json()) as { messages: StoreEnvelope[] };
      batcher.flush();
      store.getState().ingestMany(messages);
    };
    const unsubscribe = [
      client.on('message', (envelope) => batcher.envelope(envelope as StoreEnvelope)),
      client.on('stream/data', ({ streamId, data }) => batcher.streamData(streamId, data)),
      client.on('status', ({ status, close }) => store.getState().setConnection(status, close?.reason)),
      client.on('welcome', (welcome) => {
        if (welcome.to?.[0]) void catchUp(welcome.to[0]).catch(() => undefined);
      }),
      startClock(store),
    ];
    void participant.connect().catch(() => undefined); // failures surface through the status events
    setSession({ space, token, participant, store });
    return () => {
      for (const stop of unsubscribe) stop();
      batcher.dispose();
      participant.disconnect();
      setSession(undefined);
    };
  }, [space, token]);

  if (!session) return null;
  return <SpaceSessionContext.Provider value={session}>{children}</SpaceSessionContext.Provider>;
}

export function useSpaceSession(): SpaceSession {
  const session = useContext(SpaceSessionContext);
  if (!session) throw new Error('useSpaceSession must be used inside <SpaceSessionProvider>');
  return session;
}

/** Reads the space's store with a (memoised) selector from lib/store. */
export function useSpace<T>(selector: (state: SpaceStoreState) => T): T {
  return useStore(useSpaceSession().store, selector);
}
