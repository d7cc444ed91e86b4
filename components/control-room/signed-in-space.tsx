'use client';

import { useCallback, useEffect, useState, type ReactNode } from 'react';
import { SignInForm } from '@/components/sign-in-form';
import { describeSessionEnd, type SessionEnd } from '@/components/session/session-end';
import { forgetToken, rememberToken, savedToken, takeNewSignIn } from '@/components/session/session-token';
import { SpaceSessionProvider, useSpace, useSpaceSession } from '@/components/session/space-session';
import { ConnectionBadge } from './connection-badge';
import { ControlRoom } from './control-room';

/** The token this page tries: a new one (not kept yet), or the sign-in this browser kept. */
interface Attempt {
  token: string;
  saved: boolean;
}

/**
 * Signs the page in to `space` and shows its control room once the gateway has welcomed the token. A new token (from
 * the printed URL's fragment or the sign-in form) is kept only then, replacing the one kept before; a token the
 * gateway refuses is never kept and never replaces a sign-in that works: the page shows the sign-in form with the
 * reason, and the kept sign-in if there is one. Nothing else asks the server anything with a token that was not
 * welcomed (the control room's polls start with it), so one mistyped token is one refused attempt.
 */
export function SignedInSpace({ space }: { space: string }) {
  const [attempt, setAttempt] = useState<Attempt | null>();
  const [ended, setEnded] = useState<SessionEnd & { token: string }>();
  // A new session (a fresh client) for a retry.
  const [generation, setGeneration] = useState(0);
  const retry = useCallback((next: Attempt) => {
    setEnded(undefined);
    setAttempt(next);
    setGeneration((g) => g + 1);
  }, []);

  useEffect(() => {
    const fresh = takeNewSignIn(space);
    const saved = savedToken(space);
    if (!fresh && !saved) window.location.replace(`/?space=${encodeURIComponent(space)}`);
    setAttempt(fresh ? { token: fresh, saved: fresh === saved } : saved ? { token: saved, saved: true } : null);
    // A sign-in URL opened in a tab already on this page changes only the fragment: try its token all the same.
    const onHashChange = () => {
      const token = takeNewSignIn(space);
      if (token) retry({ token, saved: token === savedToken(space) });
    };
    window.addEventListener('hashchange', onHashChange);
    return () => window.removeEventListener('hashchange', onHashChange);
  }, [space, retry]);

  const onJoined = useCallback(() => {
    if (attempt && !attempt.saved) {
      rememberToken(space, attempt.token);
      setAttempt({ ...attempt, saved: true });
    }
  }, [space, attempt]);

  const onEnded = useCallback(
    (end: SessionEnd) => {
      if (!attempt) return;
      // A dead token this browser kept goes (unless another tab kept a newer one meanwhile); a new one was never kept.
      if (end.tokenDead && attempt.saved) forgetToken(space, attempt.token);
      setEnded({ ...end, token: attempt.token });
    },
    [space, attempt],
  );

  if (!attempt) return <p className="p-6 text-slate-400">{attempt === null ? 'Redirecting to sign in…' : 'Loading…'}</p>;
  if (ended) return <SessionEnded space={space} ended={ended} onRetry={retry} />;
  return (
    <SpaceSessionProvider key={generation} space={space} token={attempt.token}>
      <SessionGate space={space} onJoined={onJoined} onEnded={onEnded}>
        <ControlRoom />
      </SessionGate>
    </SpaceSessionProvider>
  );
}

/**
 * Shows `children` from the session's first welcome on (later outages keep them, reconnecting on their own); before
 * it, the connection's state. A final close (refused, kicked, …) is handed to `onEnded` instead.
 */
function SessionGate({ space, onJoined, onEnded, children }: { space: string; onJoined: () => void; onEnded: (end: SessionEnd) => void; children: ReactNode }) {
  const { participant } = useSpaceSession();
  const status = useSpace((s) => s.connection.status);
  const [joined, setJoined] = useState(false);

  useEffect(() => {
    if (status === 'ready' && !joined) {
      setJoined(true);
      onJoined();
    } else if (status === 'error') {
      onEnded(describeSessionEnd(space, participant.client.lastClose));
    }
  }, [status, joined, onJoined, onEnded, space, participant]);

  if (joined) return children;
  return (
    <main className="mx-auto flex max-w-3xl flex-col gap-3 p-6">
      <h1 className="text-2xl font-semibold">
        MEW Dashboard <span className="font-normal text-slate-400">· {space}</span>
      </h1>
      <p className="flex flex-wrap items-center gap-2 text-sm text-slate-300">
        Signing in to <span className="font-mono">{space}</span> <ConnectionBadge />
      </p>
      <a
        href="/"
        className="self-start text-sm text-sky-300 underline-offset-2 hover:underline focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-sky-400"
      >
        All spaces
      </a>
    </main>
  );
}

const LINK_BUTTON =
  'rounded border border-slate-700 px-3 py-1.5 text-sm text-slate-200 hover:bg-slate-800 focus:outline-none focus-visible:ring-2 focus-visible:ring-sky-400';

/** Why the session ended, and the ways forward: sign in again, the sign-in this browser kept, or try again. */
function SessionEnded({ space, ended, onRetry }: { space: string; ended: SessionEnd & { token: string }; onRetry: (attempt: Attempt) => void }) {
  const [kept, setKept] = useState<string>();
  useEffect(() => setKept(savedToken(space)), [space]);
  const other = kept !== undefined && kept !== ended.token ? kept : undefined;
  const signIn = ended.kind === 'refused' || ended.kind === 'kicked' || ended.kind === 'unknown_space';
  return (
    <main className="mx-auto max-w-3xl p-6">
      <h1 className="text-2xl font-semibold">MEW Dashboard</h1>
      {signIn ? (
        <SignInForm initialSpace={space} refusal={ended}>
          {other && (
            <button type="button" className={LINK_BUTTON} onClick={() => onRetry({ token: other, saved: true })}>
              Continue with the sign-in kept in this browser
            </button>
          )}
        </SignInForm>
      ) : (
        <section aria-labelledby="session-ended" className="mt-6 flex flex-col gap-3 rounded-lg border border-slate-800 p-4">
          <h2 id="session-ended" className="text-lg font-medium">
            {space}
          </h2>
          <div role="alert" className="rounded border border-amber-800 bg-amber-950/40 px-3 py-2 text-sm text-amber-100">
            <p className="font-medium">{ended.title}.</p>
            <p className="mt-1">{ended.detail}</p>
          </div>
          <button type="button" className={`self-start ${LINK_BUTTON}`} onClick={() => onRetry({ token: ended.token, saved: kept === ended.token })}>
            Connect again
          </button>
        </section>
      )}
      <p className="mt-4 text-sm">
        <a href="/" className="text-sky-300 underline-offset-2 hover:underline focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-sky-400">
          All spaces
        </a>
      </p>
    </main>
  );
}
