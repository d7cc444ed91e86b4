'use client';

import { useCallback, useId, useState } from 'react';
import { BUTTON, INPUT } from '@/components/participants/styles';
import { spaceApi } from '@/components/session/space-api';
import { useSpaceSession } from '@/components/session/space-session';
import { useVisiblePoll } from '@/components/session/use-visible-poll';
import { Dialog, DialogFooter, DialogForm } from '@/components/ui/dialog';
import type { ListedWebhook, WebhookDelivery, WebhookDeliveryLog, WebhookFormat, WebhookInput, WebhookList } from '@/lib/protocol';

/** How often the list (and each webhook's latest delivery) is read again while the dialog is open. */
const WEBHOOKS_POLL_MS = 2_000;
/** Deliveries shown when a webhook's log is opened. */
const SHOWN_DELIVERIES = 10;

/** An attempt in words: `HTTP 200`, `HTTP 503 · retry at 12:00:03`, or the network error. */
function deliveryText(d: WebhookDelivery): string {
  const outcome = d.status !== null ? `HTTP ${d.status}` : (d.error ?? 'no answer');
  const retry = d.next_retry_at ? ` · retry at ${new Date(d.next_retry_at).toLocaleTimeString()}` : '';
  return `${d.event} · attempt ${d.attempt} · ${outcome}${retry} · ${new Date(d.at).toLocaleTimeString()}`;
}

const ok = (d: WebhookDelivery) => d.status !== null && d.status < 300;

/** The space's webhooks for an operator: each with its latest delivery and its log, add and remove. */
export function WebhooksDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  return (
    <Dialog
      open={open}
      onClose={onClose}
      title="Webhooks"
      size="large"
      description="Pending proposals and their outcomes are POSTed to each URL, retried with growing waits when the receiver fails."
    >
      <WebhooksBody />
    </Dialog>
  );
}

function WebhooksBody() {
  const { space, token } = useSpaceSession();
  const [webhooks, setWebhooks] = useState<ListedWebhook[]>();
  const [error, setError] = useState<string>();
  const poll = useCallback(
    async (live: () => boolean) => {
      const answer = await spaceApi<WebhookList>(space, token, '/webhooks');
      if (live()) setWebhooks(answer.webhooks);
    },
    [space, token],
  );
  useVisiblePoll(poll, WEBHOOKS_POLL_MS);
  const refresh = () => void poll(() => true).catch((e: Error) => setError(e.message));

  const remove = (id: string) =>
    void spaceApi(space, token, `/webhooks/${encodeURIComponent(id)}`, { method: 'DELETE' }).then(refresh, (e: Error) => setError(e.message));

  return (
    <div className="flex flex-col gap-4">
      {webhooks === undefined ? (
        <p className="text-sm text-slate-400">Loading…</p>
      ) : webhooks.length === 0 ? (
        <p className="text-sm text-slate-400">No webhooks yet.</p>
      ) : (
        <ul aria-label="Webhooks" className="flex flex-col gap-2">
          {webhooks.map((webhook) => (
            <WebhookRow key={webhook.id} webhook={webhook} onRemove={() => remove(webhook.id)} />
          ))}
        </ul>
      )}
      <AddWebhookForm onAdded={refresh} />
      {error && (
        <p role="alert" className="rounded border border-red-800 bg-red-950/40 px-2 py-1 text-sm text-red-200">
          {error}
        </p>
      )}
    </div>
  );
}

function WebhookRow({ webhook, onRemove }: { webhook: ListedWebhook; onRemove: () => void }) {
  const { space, token } = useSpaceSession();
  const [log, setLog] = useState<WebhookDelivery[]>();
  const last = webhook.last_delivery;
  const showLog = () =>
    void spaceApi<WebhookDeliveryLog>(space, token, `/webhooks/${encodeURIComponent(webhook.id)}/deliveries`).then((answer) =>
      setLog(answer.deliveries.slice(0, SHOWN_DELIVERIES)),
    );
  return (
    <li aria-label={`Webhook ${webhook.url}`} className="flex flex-col gap-1 rounded border border-slate-800 p-2 text-sm">
      <div className="flex flex-wrap items-center gap-2">
        <span className="font-mono text-xs text-slate-200">{webhook.url}</span>
        <span className="rounded bg-slate-800 px-1.5 text-xs text-slate-300">{webhook.format}</span>
        <span className="text-xs text-slate-400">added by {webhook.created_by}</span>
        <span className="ml-auto flex gap-2">
          <button type="button" onClick={showLog} className={BUTTON.small}>
            Deliveries
          </button>
          <button type="button" onClick={onRemove} aria-label={`Remove webhook ${webhook.url}`} className={BUTTON.small}>
            Remove
          </button>
        </span>
      </div>
      <p className={`text-xs ${last === null ? 'text-slate-400' : ok(last) ? 'text-emerald-300' : 'text-amber-300'}`}>
        Latest delivery: {last === null ? 'none yet' : deliveryText(last)}
      </p>
      {log && (
        <ol aria-label="Delivery log" className="flex flex-col gap-0.5 border-l border-slate-800 pl-2 text-xs text-slate-300">
          {log.length === 0 && <li>No deliveries yet.</li>}
          {log.map((d) => (
            <li key={d.id}>{deliveryText(d)}</li>
          ))}
        </ol>
      )}
    </li>
  );
}

function AddWebhookForm({ onAdded }: { onAdded: () => void }) {
  const { space, token } = useSpaceSession();
  const urlId = useId();
  const [url, setUrl] = useState('');
  const [format, setFormat] = useState<WebhookFormat>('json');
  const [refusal, setRefusal] = useState<string>();
  const [waiting, setWaiting] = useState(false);
  const submit = () => {
    setWaiting(true);
    setRefusal(undefined);
    const body: WebhookInput = { url: url.trim(), format };
    spaceApi(space, token, '/webhooks', { method: 'POST', body })
      .then(
        () => {
          setUrl('');
          onAdded();
        },
        (e: Error) => setRefusal(e.message),
      )
      .finally(() => setWaiting(false));
  };
  return (
    <section aria-label="Add a webhook" className="flex flex-col gap-2 border-t border-slate-800 pt-3">
      <DialogForm onSubmit={submit}>
        <label htmlFor={urlId} className="flex flex-col gap-1 text-sm">
          Webhook URL
          <input
            id={urlId}
            data-autofocus
            type="url"
            required
            placeholder="https://hooks.slack.com/services/…"
            value={url}
            onChange={(e) => setUrl(e.target.value)}
            aria-invalid={refusal ? true : undefined}
            className={INPUT}
          />
        </label>
        <label className="flex flex-col gap-1 text-sm">
          Format
          <select value={format} onChange={(e) => setFormat(e.target.value as WebhookFormat)} className={INPUT}>
            <option value="json">Plain JSON</option>
            <option value="slack">Slack (incoming webhook)</option>
          </select>
        </label>
        <DialogFooter>
          <button type="submit" disabled={waiting || !url.trim()} className={BUTTON.primary}>
            {waiting ? 'Adding…' : 'Add webhook'}
          </button>
        </DialogFooter>
        {refusal && (
          <p role="alert" className="rounded border border-red-800 bg-red-950/40 px-2 py-1 text-sm text-red-200">
            {refusal}
          </p>
        )}
      </DialogForm>
    </section>
  );
}
