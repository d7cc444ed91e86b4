'use client';

import { clockTime } from '@/components/watch/format-time';
import { DefinitionDiff } from './definition-diff';
import { useChangedPin } from './tool-pins-source';
import { useToolsView } from './tools-view';

/**
 * On a proposal card whose tool was redefined since it was trusted (its pin is `changed`): says so, and that no rule
 * approves it, with the diff of the trusted and the current definition — before anyone approves the call. Renders
 * nothing for a tool as pinned (or never listed). Open on a pending card; folded on a decided one.
 */
export function ChangedToolWarning({ participant, tool, pending }: { participant?: string; tool?: string; pending: boolean }) {
  const pin = useChangedPin(participant, tool);
  const view = useToolsView();
  if (!pin) return null;
  return (
    <div role="alert" className="flex flex-col gap-1.5 rounded border border-amber-700 bg-amber-950/40 p-2 text-xs text-amber-100">
      <p className="font-semibold">⚠ This tool’s definition changed since it was trusted: no rule approves it.</p>
      <p className="text-amber-200/90">
        <span className="font-mono">{pin.participant}</span> redefined <span className="font-mono">{pin.name}</span>
        {pin.changed_at && <> at {clockTime(Date.parse(pin.changed_at))}</>}. Read what changed before approving: a description can instruct the agent. An
        operator can accept the new definition in Tools.
      </p>
      <details open={pending} className="min-w-0">
        <summary className="cursor-pointer text-amber-200 focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-sky-500">What changed</summary>
        <div className="mt-1">
          <DefinitionDiff pin={pin} />
        </div>
      </details>
      {view.available && (
        <button
          type="button"
          onClick={() => view.open({ participant: pin.participant, tool: pin.name })}
          className="self-start rounded border border-amber-700 px-2 py-0.5 text-amber-100 hover:bg-amber-900/50 focus:outline-none focus-visible:ring-2 focus-visible:ring-sky-400"
        >
          Review in Tools
        </button>
      )}
    </div>
  );
}
