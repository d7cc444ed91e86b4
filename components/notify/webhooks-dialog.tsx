'use client';

import { useId, useState } from 'react';
import { toast } from 'sonner';
import { BUTTON, INPUT } from '@/components/participants/styles';
import { spaceApi } from '@/components/session/space-api';
import { useSpaceSession } from '@/components/session/space-session';
import { Dialog, DialogFooter, DialogForm } from '@/components/ui/dialog';
import { clockTime } from '@/components/watch/format-time';
import {
  deliverySucceeded,
  type ListedWebhook,
  type WebhookDelivery,
  type WebhookDeliveryLog,
  type WebhookFormat,
  type WebhookInput,
  type WebhookTestResult,
} from '@/lib/protocol';
import { useAlertHealth } from './alert-health';

/** Deliveries shown when a webhook's log is opened. */
const SHOWN_DELIVERIES = 10;
/** A test is one attempt, which the server gives 10 s; the answer may take a little longer to come back. */
const TEST_TIMEOUT_MS = 15_000;

const at = (iso: string) => clockTime(Date.parse(iso));

/** An attempt's outcome: `HTTP 200`, or the network error. */
function outcomeText(d: WebhookDelivery): string {
  return d.status !== null ? `HTTP ${d.status}` : (d.error ?? 'no answer');
}

/** An attempt in words: `proposal.pending · attempt 2 · HTTP 503 · retry at 12:00:03 · 12:00:01`. */
function deliveryText(d: WebhookDelivery): string {
  const retry = d.next_retry_at ? ` · retry at ${at(d.next_retry_at)}` : '';
  return `${d.event} · attempt ${d.attempt} · ${outcomeText(d)}${retry} · ${at(d.at)}`;
}

/** The space's webhooks for an operator: each with its latest delivery, its log and a test; add and remove. */
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
  const { webhooks, refreshWebhooks } = useAlertHealth();
  const [error, setError] = useState<string>();
  const refresh = () => void refreshWebhooks().catch((e: Error) => setError(`The list could not be read again: ${e.message}`));

  const remove = (webhook: ListedWebhook) =>
    void spaceApi(space, token, `/webhooks/${encodeURIComponent(webhook.id)}`, { method: 'DELETE' }).then(
      () => {
        toast.success('Webhook removed', { description: webhook.url });
        refresh();
      },
      (e: Error) => setError(`The webhook was not removed: ${e.message}`),
    );

  return (
    <div className="flex flex-col gap-4">
      {webhooks === undefined ? (
        <p className="text-sm text-slate-400">Loading…</p>
      ) : webhooks.length === 0 ? (
        <p className="text-sm text-slate-400">No webhooks yet.</p>
      ) : (
        <ul aria-label="Webhooks" className="flex flex-col gap-2">
          {webhooks.map((webhook) => (
            <WebhookRow key={webhook.id} webhook={webhook} onRemove={() => remove(webhook)} onTested={refresh} />
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

function WebhookRow({ webhook, onRemove, onTested }: { webhook: ListedWebhook; onRemove: () => void; onTested: () => void }) {
  const { space, token } = useSpaceSession();
  const [log, setLog] = useState<WebhookDelivery[]>();
  const [logError, setLogError] = useState<string>();
  const [testing, setTesting] = useState(false);
  const [tested, setTested] = useState<{ ok: boolean; text: string }>();
  const last = webhook.last_delivery;
  const path = `/webhooks/${encodeURIComponent(webhook.id)}`;
  const showLog = () => {
    setLogError(undefined);
    spaceApi<WebhookDeliveryLog>(space, token, `${path}/deliveries`).then(
      (answer) => setLog(answer.deliveries.slice(0, SHOWN_DELIVERIES)),
      (e: Error) => setLogError(`The delivery log could not be read: ${e.message}`),
    );
  };
  const sendTest = () => {
    setTesting(true);
    setTested(undefined);
    spaceApi<WebhookTestResult>(space, token, `${path}/test`, { method: 'POST', timeoutMs: TEST_TIMEOUT_MS })
      .then(
        ({ delivery }) => {
          const ok = deliverySucceeded(delivery);
          const text = `Test ${ok ? 'delivered' : 'failed'}: ${outcomeText(delivery)} at ${at(delivery.at)}`;
          setTested({ ok, text });
          if (ok) toast.success('Test delivered', { description: `${webhook.url} answered ${outcomeText(delivery)}` });
          else toast.error('Test failed', { description: `${webhook.url}: ${outcomeText(delivery)}`, duration: 15_000 });
          if (log) showLog();
        },
        (e: Error) => {
          setTested({ ok: false, text: `Test not sent: ${e.message}` });
          toast.error('Test not sent', { description: e.message, duration: 15_000 });
        },
      )
      .finally(() => {
        setTesting(false);
        onTested();
      });
  };
  const tone = last === null ? 'text-slate-400' : deliverySucceeded(last) ? 'text-emerald-300' : 'text-red-300';
  return (
    <li
      aria-label={`Webhook ${webhook.url}`}
      className={`flex flex-col gap-1 rounded border p-2 text-sm ${webhook.failing ? 'border-red-800 bg-red-950/20' : 'border-slate-800'}`}
    >
      <div className="flex flex-wrap items-center gap-2">
        <span className="break-all font-mono text-xs text-slate-200">{webhook.url}</span>
        <span className="rounded bg-slate-800 px-1.5 text-xs text-slate-300">{webhook.format}</span>
        {webhook.failing && <span className="rounded bg-red-900/70 px-1.5 text-xs font-medium text-red-100">failing</span>}
        <span className="text-xs text-slate-400">added by {webhook.created_by}</span>
        <span className="ml-auto flex gap-2">
          <button type="button" onClick={sendTest} disabled={testing} aria-label={`Send a test to ${webhook.url}`} className={BUTTON.small}>
            {testing ? 'Sending test…' : 'Send test'}
          </button>
          <button type="button" onClick={showLog} className={BUTTON.small}>
            Deliveries
          </button>
          <button type="button" onClick={onRemove} aria-label={`Remove webhook ${webhook.url}`} className={BUTTON.small}>
            Remove
          </button>
        </span>
      </div>
      <p className={`text-xs ${tone}`}>Latest delivery: {last === null ? 'none yet' : deliveryText(last)}</p>
      {tested && (
        <p role="status" className={`text-xs ${tested.ok ? 'text-emerald-300' : 'text-red-300'}`}>
          {tested.text}
        </p>
      )}
      {logError && (
        <p role="alert" className="text-xs text-red-300">
          {logError}
        </p>
      )}
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
          toast.success('Webhook added', { description: 'Send it a test to check that it answers.' });
          onAdded();
        },
        (e: Error) => setRefusal(`Not added: ${e.message}`),
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
