'use client';

import { useSpace } from '@/components/session/space-session';
import { buttonClass } from './button-styles';
import { Age } from './proposal-clock';
import { activeToolGrants } from './tool-grants';
import type { ProposalActions } from './use-proposal-actions';

/**
 * Grants in force that let a participant call named tools directly, with any arguments and no approval (made in a
 * participant's capability editor, or by an earlier "Always allow"), each revocable (`capability/revoke` by grant id).
 */
export function AlwaysAllowedList({ actions }: { actions: ProposalActions }) {
  const grants = useSpace(activeToolGrants);
  const me = useSpace((s) => s.connection.me);
  if (grants.length === 0) return null;
  return (
    <section aria-labelledby="always-allowed-heading" className="flex flex-col gap-1.5 border-t border-slate-800 pt-2">
      <h3 id="always-allowed-heading" className="text-xs font-semibold tracking-wide text-slate-400 uppercase">
        Granted tools (any arguments, no approval)
      </h3>
      <ul className="flex flex-col gap-1">
        {grants.map(({ grant, tools }) => (
          <li key={grant.id} className="flex flex-wrap items-center gap-x-2 gap-y-1 rounded border border-slate-800 px-2 py-1 text-xs">
            <span className="font-medium text-slate-200">{grant.recipient}</span>
            <span className="text-slate-400">may call directly</span>
            <span className="font-mono text-sky-300">{tools.join(', ')}</span>
            <span className="text-slate-500">
              granted by {grant.granter === me ? 'you' : grant.granter} <Age at={grant.at} />
              {grant.ack ? ` · ${grant.ack.status}` : ''}
            </span>
            <button
              type="button"
              onClick={() => actions.revoke(grant, tools)}
              aria-label={`Revoke ${grant.recipient}'s permission to call ${tools.join(', ')}`}
              className={`${buttonClass.base} ${buttonClass.rejectOutline} ml-auto px-2 py-0.5 text-xs`}
            >
              Revoke
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}
