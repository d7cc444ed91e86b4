'use client';

import { useEffect, useState } from 'react';
import { SpaceSessionProvider } from '@/components/session/space-session';
import { takeToken } from '@/components/session/session-token';
import { ControlRoom } from './control-room';

/** Finds this tab's token for the space (URL fragment or session storage) or sends the user to sign in. */
export function SignedInSpace({ space }: { space: string }) {
  const [token, setToken] = useState<string | null>();

  useEffect(() => {
    const found = takeToken(space);
    if (!found) window.location.replace(`/?space=${encodeURIComponent(space)}`);
    setToken(found ?? null);
  }, [space]);

  if (!token) return <p className="p-6 text-slate-400">{token === null ? 'Redirecting to sign in…' : 'Loading…'}</p>;
  return (
    <SpaceSessionProvider space={space} token={token}>
      <ControlRoom />
    </SpaceSessionProvider>
  );
}
