'use client';

import { memo, type ReactNode } from 'react';
import { RelativeTime } from '@/components/participants/relative-time';
import { useRules } from '@/components/rules/rules-context';
import { SecretMask, useMaskedValue } from '@/components/watch/revealed-secrets';
import type { RuleRef } from '@/lib/protocol';
import { maskText } from '@/lib/secrets/secret-masking';
import type { Proposal } from '@/lib/store';
import { JsonBlock } from './json-block';
import { resultText } from './proposal-content';
import { reasonLabel } from './reject-reasons';

const who = (id: string, me: string | undefined) => (id === me ? `${id} (you)` : id);

/** Why a proposer withdrew, in words (its own reason code otherwise). */
const WITHDRAWN_BECAUSE: Record<string, string> = {
  timeout: 'its timeout ran out before anyone decided',
  cancelled: 'it stopped waiting',
  no_longer_needed: 'it no longer needs it',
};

/** "by rule *name* (v3)", a link to the rule for those who may open the rules. */
function ByRule({ rule }: { rule: RuleRef }) {
  const rules = useRules();
  const label = (
    <>
      rule <span className="font-medium">{maskText(rule.name)}</span> (v{rule.version})
    </>
  );
  if (!rules.mayManage) return label;
  return (
    <button
      type="button"
      onClick={() => rules.open({ ruleId: rule.id })}
      className="underline decoration-dotted underline-offset-2 hover:text-slate-100 focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-sky-500"
    >
      {label}
    </button>
  );
}

/** A reject's explanation (a chat), quoted, masked as the chat shows it. */
function Explanation({ id, text }: { id: string; text: string }) {
  const { shown, secret } = useMaskedValue(id, text);
  return (
    <p className="mt-0.5 whitespace-pre-wrap text-slate-300">
      “{shown}”
      {secret && (
        <>
          {' '}
          <SecretMask envelopeId={id} what="message" />
        </>
      )}
    </p>
  );
}

/**
 * What became of a proposal: who approved or rejected it and why, the result or error, withdrawal, expiry. Free text
 * (an explanation, edited params, the result) shows with its secrets masked, each revealed by its own envelope.
 */
export const ProposalOutcome = memo(function ProposalOutcome({ proposal: p, me }: { proposal: Proposal; me?: string }) {
  const f = p.fulfilment;
  const o = p.outcome;
  const lines: ReactNode[] = [];
  const sent = useMaskedValue(f?.id ?? '', f?.edited ? f.params : undefined);
  const outcomeText = o ? (o.error ? `${o.error.message ?? 'error'}${o.error.code !== undefined ? ` (code ${o.error.code})` : ''}` : resultText(o.result)) : '';
  const result = useMaskedValue(o?.responseId ?? '', outcomeText);

  // A proposer that withdraws at its own timeout is the same event as its deadline passing: one line says both.
  const timedOut = p.withdrawal?.reason === 'timeout';
  if ((p.state === 'expired' || p.expiredAt !== undefined) && !timedOut) {
    const within = p.deadlineSource === 'proposer' ? `within ${p.proposer}’s timeout` : `within this dashboard’s limit (${p.proposer} named no timeout)`;
    lines.push(
      <p key="expired" className="text-amber-300">
        Expired
        {p.expiredAt !== undefined && (
          <>
            {' '}
            <RelativeTime at={p.expiredAt} />
          </>
        )}
        : nobody decided {within}. It was not rejected.
      </p>,
    );
  }
  if (p.withdrawal) {
    const reason = p.withdrawal.reason;
    lines.push(
      <p key="withdrawn" className={timedOut ? 'text-amber-300' : 'text-slate-300'}>
        Withdrawn by {p.proposer}
        {reason ? `: ${WITHDRAWN_BECAUSE[reason] ?? reason}` : ''}.{timedOut ? ' It was not rejected.' : ''}
      </p>,
    );
  }
  for (const r of p.rejections) {
    lines.push(
      <div key={r.id} className="text-red-300">
        <p>
          Rejected by {r.rule ? <ByRule rule={r.rule} /> : who(r.by, me)}: <span title={r.reason && `reason code ${r.reason}`}>{reasonLabel(r.reason)}</span>
        </p>
        {r.explanation && <Explanation id={r.explanation.id} text={r.explanation.text} />}
      </div>,
    );
  }
  if (f) {
    lines.push(
      <div key="fulfilled" className="flex flex-col gap-1 text-slate-300">
        <p>
          Approved by {f.rule ? <ByRule rule={f.rule} /> : who(f.by, me)}
          {f.edited ? ' with edited arguments' : ''}
          {p.fulfilments.length > 1
            ? ` (also fulfilled by ${p.fulfilments
                .slice(1)
                .map((x) => who(x.by, me))
                .join(', ')})`
            : ''}
          {p.state === 'fulfilled' ? ' — waiting for the result…' : '.'}
        </p>
        {f.edited && (
          <details className="text-xs">
            <summary className="cursor-pointer text-slate-400 focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-sky-500">
              What was sent instead
            </summary>
            {sent.secret && <SecretMask envelopeId={f.id} what="approval" />}
            <JsonBlock value={sent.shown} label={sent.secret && !sent.revealed ? 'Params sent, secret masked' : 'Params sent'} />
          </details>
        )}
      </div>,
    );
  }
  if (o) {
    const text = result.shown;
    lines.push(
      <div key="outcome" className="flex flex-col gap-1">
        <p className={o.isError ? 'text-red-300' : 'text-emerald-300'}>
          {o.isError ? 'Failed' : 'Completed'} — result from {o.from}:
        </p>
        {result.secret && <SecretMask envelopeId={o.responseId} what="result" />}
        <pre
          aria-label={o.isError ? 'Error' : 'Result'}
          className={`max-h-48 overflow-auto rounded border p-2 font-mono text-xs whitespace-pre-wrap break-all ${
            o.isError ? 'border-red-900 bg-red-950/40 text-red-200' : 'border-emerald-900 bg-emerald-950/30 text-emerald-100'
          }`}
        >
          {text || '(empty result)'}
        </pre>
      </div>,
    );
  }
  if (lines.length === 0) return null;
  return <div className="flex flex-col gap-1.5 text-xs">{lines}</div>;
});
