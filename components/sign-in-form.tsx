'use client';

import { useEffect, useState, type FormEvent } from 'react';
import { rememberToken } from '@/components/session/session-token';

/** Signs this browser in to a space with a participant token (kept in local storage, never in the URL). */
export function SignInForm() {
  const [space, setSpace] = useState('demo');
  const [token, setToken] = useState('');

  useEffect(() => {
    const requested = new URLSearchParams(window.location.search).get('space');
    if (requested) setSpace(requested);
  }, []);

  function submit(event: FormEvent) {
    event.preventDefault();
    rememberToken(space.trim(), token.trim());
    window.location.assign(`/spaces/${encodeURIComponent(space.trim())}`);
  }

  return (
    <form onSubmit={submit} aria-labelledby="sign-in-heading" className="mt-6 flex flex-col gap-3 rounded-lg border border-slate-800 p-4">
      <h2 id="sign-in-heading" className="text-lg font-medium">
        Sign in to a space
      </h2>
      <p className="text-sm text-slate-400">Use the sign-in URL the server printed when it started, or paste a participant token here.</p>
      <label className="flex flex-col gap-1 text-sm">
        Space
        <input
          required
          value={space}
          onChange={(e) => setSpace(e.target.value)}
          className="rounded border border-slate-700 bg-slate-900 px-2 py-1.5 font-mono"
        />
      </label>
      <label className="flex flex-col gap-1 text-sm">
        Token
        <input
          required
          type="password"
          autoComplete="off"
          value={token}
          onChange={(e) => setToken(e.target.value)}
          className="rounded border border-slate-700 bg-slate-900 px-2 py-1.5 font-mono"
        />
      </label>
      <button
        type="submit"
        className="self-start rounded bg-sky-600 px-4 py-1.5 text-sm font-medium text-white hover:bg-sky-500 focus:outline-none focus-visible:ring-2 focus-visible:ring-sky-300"
      >
        Open control room
      </button>
    </form>
  );
}
