'use client';

import { useState } from 'react';
import { toast } from 'sonner';
import { Dialog, DialogFooter, DialogForm } from '@/components/ui/dialog';
import { useBudget } from './budgets';
import { NumberField, optionalAmount, optionalCount } from './number-field';
import { BUTTON } from './styles';

/** Sets or clears a participant's budget (operators; the server checks). */
export function BudgetDialog({ participant, open, onClose }: { participant: string; open: boolean; onClose: () => void }) {
  return (
    <Dialog
      open={open}
      onClose={onClose}
      size="small"
      title={`Budget of ${participant}`}
      description="The gateway warns at 80 % and pauses it at 100 %, then asks it to compact. Changing the budget does not resume it."
    >
      <BudgetForm participant={participant} onDone={onClose} />
    </Dialog>
  );
}

function BudgetForm({ participant, onDone }: { participant: string; onDone: () => void }) {
  const { budget, set, clear } = useBudget(participant);
  const [tokensText, setTokensText] = useState(budget?.tokens === undefined ? '' : String(budget.tokens));
  const [usdText, setUsdText] = useState(budget?.usd === undefined ? '' : String(budget.usd));
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const tokens = optionalCount(tokensText);
  const usd = optionalAmount(usdText);
  const invalid = Number.isNaN(tokens) || Number.isNaN(usd);
  const empty = tokens === undefined && usd === undefined;

  async function run(action: () => Promise<void>, done: string) {
    setBusy(true);
    setError(undefined);
    try {
      await action();
      toast.success(done);
      onDone();
    } catch (e) {
      setError((e as Error).message);
      setBusy(false);
    }
  }

  return (
    <DialogForm
      onSubmit={() => {
        if (!invalid && !empty)
          void run(() => set(participant, { ...(tokens !== undefined && { tokens }), ...(usd !== undefined && { usd }) }), `Budget of ${participant} set`);
      }}
    >
      <NumberField
        first
        label="Tokens"
        value={tokensText}
        onChange={setTokensText}
        invalid={Number.isNaN(tokens)}
        hint="Tokens it may consume in all (empty: no token limit)."
      />
      <NumberField
        decimal
        label="US dollars"
        value={usdText}
        onChange={setUsdText}
        invalid={Number.isNaN(usd)}
        hint="What it may spend, by the cost it reports or its configured price."
      />
      {error && (
        <p role="alert" className="text-sm text-red-300">
          {error}
        </p>
      )}
      <DialogFooter>
        {budget?.source === 'runtime' && (
          <button
            type="button"
            disabled={busy}
            onClick={() => void run(() => clear(participant), `Budget of ${participant} cleared`)}
            className={`mr-auto ${BUTTON.secondary}`}
          >
            Clear
          </button>
        )}
        <button type="button" onClick={onDone} className={BUTTON.secondary}>
          Cancel
        </button>
        <button type="submit" disabled={busy || invalid || empty} className={BUTTON.primary}>
          Save
        </button>
      </DialogFooter>
    </DialogForm>
  );
}
