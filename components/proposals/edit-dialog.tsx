'use client';

import { useId, useMemo, useState } from 'react';
import { Dialog, DialogFooter, DialogForm } from '@/components/ui/dialog';
import { useMaskedValue } from '@/components/watch/revealed-secrets';
import { formatIssuePath } from '@/lib/protocol';
import { maskValue } from '@/lib/secrets/secret-masking';
import { unmaskEdited, type UnmaskedEdit } from '@/lib/secrets/unmask-edited';
import { validateJsonSchema, type JsonSchema } from '@/lib/sdk/json-schema-validator';
import type { Proposal } from '@/lib/store';
import { buttonClass } from './button-styles';
import { isRecordValue } from './json-value';
import { prettyJson } from './proposal-content';
import { TextDiff } from './text-diff';

/** One problem: where (a path into the arguments, when the schema names one) and what. */
interface Problem {
  at?: string;
  message: string;
}

type Check = { ok: true; value: unknown } | { ok: false; problems: Problem[] };

/** Puts back the secrets the edit left masked (identity when they were shown whole). */
type Restore = (edited: unknown) => UnmaskedEdit<unknown>;
const asEdited: Restore = (value) => ({ value, unresolved: [] });

function check(text: string, schema: JsonSchema | undefined, root: string, isToolCall: boolean, restore: Restore): Check {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { ok: false, problems: [{ message: `Invalid JSON: ${error instanceof Error ? error.message : String(error)}` }] };
  }
  // MCP: tool arguments are an object; JSON-RPC params an object or an array.
  if (isToolCall ? !isRecordValue(value) : typeof value !== 'object' || value === null) {
    return { ok: false, problems: [{ at: root, message: `must be a JSON ${isToolCall ? 'object' : 'object or array'}` }] };
  }
  // The schema checks what would be sent: the secrets put back.
  const restored = restore(value);
  if (restored.unresolved.length > 0) {
    return {
      ok: false,
      problems: restored.unresolved.map((form) => ({
        message: `${form} stands for more than one masked secret: type the value, or reveal the proposal on its card (audited) to edit it whole`,
      })),
    };
  }
  value = restored.value;
  if (!schema) return { ok: true, value };
  const issues = validateJsonSchema(schema, value);
  return issues.length === 0
    ? { ok: true, value }
    : { ok: false, problems: issues.map((i) => ({ at: formatIssuePath([root, ...i.path]), message: i.message })) };
}

/**
 * Edit-then-approve: the arguments as JSON, checked on every keystroke (syntax, then the tool's whole `inputSchema`
 * with the SDK's validator, the same check the tool runs); approving is impossible while anything is wrong, and
 * each problem is listed with the path it concerns. Secrets show masked (`ghp_…abcd`) unless an operator revealed
 * the proposal; a masked secret left as it is goes out unchanged (lib/secrets/unmask-edited.ts), and the diff of
 * the changes shows secrets masked too. Mounted only while open.
 */
export function EditDialog({
  proposal,
  inputSchema,
  onCancel,
  onApprove,
}: {
  proposal: Proposal;
  inputSchema: unknown;
  onCancel: () => void;
  /** Receives the edited `params` to send. */
  onApprove: (params: unknown) => void;
}) {
  const isToolCall = proposal.method === 'tools/call';
  const original = isToolCall ? (proposal.arguments ?? {}) : (proposal.params ?? {});
  const { shown, secret, revealed } = useMaskedValue(proposal.id, original);
  const masked = secret && !revealed;
  const restore = useMemo<Restore>(() => (masked ? (edited) => unmaskEdited(edited, original) : asEdited), [masked, original]);
  const originalText = useMemo(() => prettyJson(shown), [shown]);
  const [text, setText] = useState(originalText);
  const schema = isToolCall && isRecordValue(inputSchema) ? (inputSchema as JsonSchema) : undefined;
  const root = isToolCall ? 'arguments' : 'params';
  const result = useMemo(() => check(text, schema, root, isToolCall, restore), [text, schema, root, isToolCall, restore]);
  const fieldId = useId();
  const problemsId = useId();
  const maskedNoteId = useId();
  const name = proposal.toolName ?? proposal.method;

  const submit = () => {
    if (!result.ok) return;
    onApprove(isToolCall ? { ...(isRecordValue(proposal.params) ? proposal.params : {}), name: proposal.toolName, arguments: result.value } : result.value);
  };

  return (
    <Dialog
      open
      size="large"
      closeButton={false}
      title={`Edit then approve: ${name}`}
      description={
        <>
          Proposed by <span className="font-mono">{proposal.proposer}</span> for <span className="font-mono">{proposal.target ?? 'anyone'}</span>.{' '}
          {schema
            ? `Checked against ${name}'s inputSchema as you type.`
            : isToolCall
              ? `${proposal.target ?? 'The target'} declared no inputSchema for ${name}: only the JSON is checked.`
              : ''}
        </>
      }
      onClose={onCancel}
    >
      <DialogForm onSubmit={submit}>
        <label htmlFor={fieldId} className="text-sm font-medium text-slate-200">
          {isToolCall ? 'Arguments' : 'Params'} (JSON)
        </label>
        <textarea
          id={fieldId}
          data-autofocus
          value={text}
          spellCheck={false}
          rows={Math.min(18, Math.max(6, text.split('\n').length + 1))}
          onChange={(event) => setText(event.target.value)}
          aria-invalid={!result.ok}
          aria-describedby={masked ? `${maskedNoteId} ${problemsId}` : problemsId}
          aria-errormessage={result.ok ? undefined : problemsId}
          className="w-full rounded border border-slate-700 bg-slate-900 p-2 font-mono text-xs leading-5 text-slate-100 focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-sky-500 aria-[invalid=true]:border-red-700"
        />
        {masked && (
          <p id={maskedNoteId} className="text-xs text-slate-400">
            Secret masked: a masked value (like <span className="font-mono">ghp_…abcd</span>) left as it is is sent unchanged. Reveal the proposal on its card
            (audited) to edit it whole.
          </p>
        )}
        <div id={problemsId} aria-live="polite" className="text-xs">
          {result.ok ? (
            <p className="text-emerald-300">{schema ? 'Valid against the tool’s inputSchema.' : 'Valid JSON.'}</p>
          ) : (
            <ul aria-label={`${result.problems.length} problem${result.problems.length === 1 ? '' : 's'}`} className="flex flex-col gap-0.5 text-red-300">
              {result.problems.map(({ at, message }) => (
                <li key={`${at}\u0000${message}`}>
                  {at && <code className="font-mono text-red-200">{at}</code>}
                  {at && ' '}
                  {message}
                </li>
              ))}
            </ul>
          )}
        </div>
        {result.ok && text !== originalText && (
          <TextDiff before={originalText} after={prettyJson(masked ? maskValue(result.value) : result.value)} label="Your changes" />
        )}
        <DialogFooter>
          {text !== originalText && (
            <button type="button" className={`${buttonClass.base} ${buttonClass.neutral}`} onClick={() => setText(originalText)}>
              Reset
            </button>
          )}
          <button type="button" className={`${buttonClass.base} ${buttonClass.neutral}`} onClick={onCancel}>
            Cancel
          </button>
          <button type="submit" disabled={!result.ok} className={`${buttonClass.base} ${buttonClass.approve}`} title="Ctrl+Enter">
            Approve with edits
          </button>
        </DialogFooter>
      </DialogForm>
    </Dialog>
  );
}
