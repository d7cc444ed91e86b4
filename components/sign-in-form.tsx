'use client';

import { useEffect, useId, useRef, useState, type FormEvent, type ReactNode } from 'react';
import { handOverSignIn } from '@/components/session/session-token';

/**
 * Signs this browser in to a space with a participant token. The token is handed to the space's page (this tab's
 * session storage, never the URL), which tries it and keeps it only once the gateway accepts it. With `refusal`, the
 * form says why the last attempt failed (the reason is announced, the token field starts focused and marked).
 */
export function SignInForm({
  initialSpace,
  refusal,
  children,
}: {
  /** The space to fill in (else `?space=` of the address, else `demo`). */
  initialSpace?: string;
  refusal?: { title: string; detail: string };
  /** More ways forward, after the form's button (e.g. the sign-in this browser kept). */
  children?: ReactNode;
}) {
  const [space, setSpace] = useState(initialSpace ?? 'demo');
  const [token, setToken] = useState('');
  const reasonId = useId();
  const tokenField = useRef<HTMLInputElement>(null);

  useEffect(() => {
    if (initialSpace) return;
    const requested = new URLSearchParams(window.location.search).get('space');
    if (requested) setSpace(requested);
  }, [initialSpace]);

  useEffect(() => {
    if (refusal) tokenField.current?.focus();
  }, [refusal]);

  function submit(event: FormEvent) {
    event.preventDefault();
    const name = space.trim();
    handOverSignIn(name, token.trim());
    window.location.assign(`/spaces/${encodeURIComponent(name)}`);
  }

  const heading = refusal ? `Sign in to ${space.trim() || 'a space'}` : 'Sign in to a space';
  return (
    <form onSubmit={submit} aria-labelledby="sign-in-heading" className="mt-6 flex flex-col gap-3 rounded-lg border border-slate-800 p-4">
      <h2 id="sign-in-heading" className="text-lg font-medium">
        {heading}
      </h2>
      {refusal ? (
        <div id={reasonId} role="alert" className="rounded border border-red-800 bg-red-950/40 px-3 py-2 text-sm text-red-100">
          <p className="font-medium">{refusal.title}.</p>
          <p className="mt-1 text-red-200/90">{refusal.detail}</p>
        </div>
      ) : (
        <p className="text-sm text-slate-400">Use the sign-in URL the server printed when it started, or paste a participant token here.</p>
      )}
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
          ref={tokenField}
          required
          type="password"
          autoComplete="off"
          value={token}
          onChange={(e) => setToken(e.target.value)}
          aria-invalid={refusal ? true : undefined}
          aria-describedby={refusal ? reasonId : undefined}
          className="rounded border border-slate-700 bg-slate-900 px-2 py-1.5 font-mono aria-invalid:border-red-700"
        />
      </label>
      <div className="flex flex-wrap items-center gap-3">
        <button
          type="submit"
          className="rounded bg-sky-700 px-4 py-1.5 text-sm font-medium text-white hover:bg-sky-600 focus:outline-none focus-visible:ring-2 focus-visible:ring-sky-300"
        >
          Open control room
        </button>
        {children}
      </div>
    </form>
  );
}
