'use client';

import { createContext, useContext, useEffect, useState, type ReactNode } from 'react';
import { toast } from 'sonner';
import { useStore } from 'zustand';
import { MEWParticipant } from '@/lib/sdk/mew-participant';
import { createSpaceStore, startClock, type SpaceStore, type SpaceStoreState } from '@/lib/store';
import { createEnvelopeBatcher } from './envelope-batcher';

/** One signed-in space: the browser's own participant and the store that views its model. */
export interface SpaceSession {
  space: string;
  token: string;
  participant: MEWParticipant;
  store: SpaceStore;
}

const SpaceSessionContext = createContext<SpaceSession | null>(null);

/**
 * The control room asks the gateway to coalesce routine traffic into one frame per this many ms: in a busy space
 * each envelope would otherwise be a task of its own on the main thread, and a proposal would wait behind thousands.
 * Matches the envelope batcher's routine pace, so batches arrive about as often as the store is fed anyway.
 */
const COALESCE_MS = 100;

/**
 * Connects the browser participant to `space` (in an effect: sockets never open during server rendering). Its model
 * (with what only a screen shows) is the one state of the space: the participant applies every envelope, stream frame
 * and status change as it arrives, and the store publishes it in batches, so a card and the SDK's answers (`fulfil`,
 * `pending()`) never disagree. The client asks the gateway for everything it retained on the first connect and for
 * what it missed on every reconnect (by the gateway's cursor, never the browser's clock), so a reload or an outage
 * never loses a pending proposal.
 */
export function SpaceSessionProvider({ space, token, children }: { space: string; token: string; children: ReactNode }) {
  const [session, setSession] = useState<SpaceSession>();

  useEffect(() => {
    const gateway = `${window.location.protocol === 'https:' ? 'wss' : 'ws'}://${window.location.host}/ws`;
    const participant = new MEWParticipant({
      gateway,
      space,
      token,
      catchUp: 'retained',
      autoDiscovery: true,
      coalesceMs: COALESCE_MS,
      spaceModel: { screen: true },
    });
    const store = createSpaceStore({ model: participant.spaceModel });
    const client = participant.client;
    const batcher = createEnvelopeBatcher(store);
    let welcomed = false;
    // The participant's own listeners, registered first, have applied what these announce.
    const unsubscribe = [
      client.on('message', (envelope) => batcher.envelope(envelope)),
      client.on('stream/data', () => batcher.streamData()),
      client.on('status', () => store.getState().publish()),
      client.on('catch-up', ({ complete, replayed }) => {
        // On the first connect an incomplete history is simply a long-lived space; after an outage it is a gap.
        if (welcomed && !complete) {
          toast.warning('Some of what happened while you were away is no longer in the gateway’s history', {
            description: `${replayed} envelopes caught up; older ones were dropped. The envelope log and charts may have gaps.`,
          });
        }
      }),
      client.on('welcome', () => {
        welcomed = true;
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

/** Puts an existing session in context, for a view showing several spaces' parts side by side (the inbox). */
export function SpaceSessionScope({ session, children }: { session: SpaceSession; children: ReactNode }) {
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
