'use client';

import { useEffect, useId, useMemo, useRef, useState, type FormEvent } from 'react';
import { spaceApi } from '@/components/session/space-api';
import { useSpaceSession } from '@/components/session/space-session';
import { CopyButton } from '@/components/ui/copy-button';
import { Dialog, DialogFooter } from '@/components/ui/dialog';
import { participantTokensPath, TOKEN_LABEL_MAX, type IssuedParticipantToken } from '@/lib/protocol';
import { CopyField } from './copy-field';
import { mcpClientSetups, mcpServerName, mcpServerUrl, type McpClientSetup } from './mcp-client-snippets';
import { BUTTON, INPUT } from './styles';

/**
 * "Connect an MCP client…" for one participant, for operators: the space's MCP server URL, a token of its own for the
 * client (issued on request by `POST /api/spaces/{space}/participants/{id}/tokens`, shown once: it lives only in this
 * dialog's state), and the setup of each client (Claude Code, Cursor, VS Code, Codex CLI, the OpenAI Agents SDK, MCP
 * Inspector) filled in with both, each with a labelled copy button.
 */
export function ConnectMcpDialog({ participant, open, onClose }: { participant: string; open: boolean; onClose: () => void }) {
  return (
    <Dialog
      open={open}
      onClose={onClose}
      size="large"
      title={`Connect an MCP client as ${participant}`}
      description={
        <>
          Any MCP client joins this space as <b className="font-mono">{participant}</b>: it lists the tools {participant} may call or propose, and a call{' '}
          {participant} may only propose waits for approval here.
        </>
      }
    >
      <ConnectMcp participant={participant} onClose={onClose} />
    </Dialog>
  );
}

function ConnectMcp({ participant, onClose }: { participant: string; onClose: () => void }) {
  const { space, token: myToken } = useSpaceSession();
  const url = mcpServerUrl(window.location.origin, space);
  const [label, setLabel] = useState('');
  const [issuing, setIssuing] = useState(false);
  const [issued, setIssued] = useState<IssuedParticipantToken>();
  const [error, setError] = useState<string>();
  const [clientId, setClientId] = useState<McpClientSetup['id']>('claude-code');
  const setups = useMemo(() => mcpClientSetups({ url, name: mcpServerName(space), token: issued?.token }), [url, space, issued?.token]);
  const setup = setups.find((s) => s.id === clientId) ?? setups[0];
  const labelId = useId();
  const clientsId = useId();
  const tokenSection = useRef<HTMLElement>(null);
  // The form (and its focused button) just went away: start on the token's copy button.
  useEffect(() => {
    if (issued) tokenSection.current?.querySelector<HTMLElement>('button')?.focus();
  }, [issued]);

  async function issue(event: FormEvent) {
    event.preventDefault();
    if (issuing) return;
    setIssuing(true);
    setError(undefined);
    try {
      const body = label.trim() ? { label: label.trim() } : {};
      setIssued(await spaceApi<IssuedParticipantToken>(space, myToken, participantTokensPath(participant), { method: 'POST', body }));
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    } finally {
      setIssuing(false);
    }
  }

  return (
    <div className="flex flex-col gap-4">
      <CopyField label="MCP server URL" value={url} copy="Copy URL" />

      <section ref={tokenSection} aria-labelledby={labelId} className="flex flex-col gap-2">
        <h3 id={labelId} className="text-sm font-semibold text-slate-200">
          Token
        </h3>
        {issued ? (
          <>
            <p role="alert" className="rounded border border-amber-700 bg-amber-950/40 px-2 py-1.5 text-sm text-amber-100">
              A new token for <b className="font-mono">{issued.participant}</b>. Copy it now: it will not be shown again. A kick of {issued.participant} revokes
              it.
            </p>
            <CopyField label="Token" value={issued.token} copy="Copy token" secret />
          </>
        ) : (
          <form onSubmit={issue} className="flex flex-col gap-2">
            <p className="text-xs text-slate-400">
              The client needs a token of {participant}’s. Issue one for it (the server keeps only its hash, and audits it), or use one you have.
            </p>
            <label className="flex flex-col gap-1 text-sm">
              Label (optional, kept with the token in the audit log)
              <input
                value={label}
                onChange={(e) => setLabel(e.target.value)}
                maxLength={TOKEN_LABEL_MAX}
                placeholder="e.g. Claude Code on my laptop"
                autoComplete="off"
                className={INPUT}
              />
            </label>
            <div>
              <button type="submit" disabled={issuing} className={BUTTON.primary} data-autofocus>
                {issuing ? 'Issuing…' : `Issue a token for ${participant}`}
              </button>
            </div>
            {error && (
              <p role="alert" className="rounded border border-red-800 bg-red-950/40 px-2 py-1 text-sm text-red-200">
                No token: {error}
              </p>
            )}
          </form>
        )}
      </section>

      <section aria-labelledby={clientsId} className="flex flex-col gap-2">
        <h3 id={clientsId} className="text-sm font-semibold text-slate-200">
          Set up your client
        </h3>
        <fieldset className="flex flex-wrap gap-x-3 gap-y-1 text-sm">
          <legend className="sr-only">Client</legend>
          {setups.map((s) => (
            <label key={s.id} className="flex items-center gap-1.5">
              <input type="radio" name="mcp-client" value={s.id} checked={s.id === setup.id} onChange={() => setClientId(s.id)} />
              {s.client}
            </label>
          ))}
        </fieldset>
        <p className="text-xs text-slate-400">{setup.note}</p>
        {setup.snippets.map((snippet) => (
          <div key={snippet.label} className="flex flex-col gap-1">
            <pre
              // Focusable so the keyboard can scroll a long line; named for what it holds.
              tabIndex={0}
              aria-label={`${setup.client} ${snippet.label}`}
              className="overflow-x-auto rounded border border-slate-800 bg-slate-950 p-2 font-mono text-xs text-slate-200 focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-sky-500"
            >
              {snippet.text}
            </pre>
            <div>
              <CopyButton value={snippet.text}>{`Copy ${setup.client} ${snippet.label}`}</CopyButton>
            </div>
          </div>
        ))}
        {!issued && <p className="text-xs text-slate-500">YOUR_TOKEN stands for the token until you issue one.</p>}
      </section>

      <DialogFooter>
        <button type="button" onClick={onClose} className={BUTTON.secondary}>
          Done
        </button>
      </DialogFooter>
    </div>
  );
}
