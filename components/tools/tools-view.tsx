'use client';

import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { toast } from 'sonner';
import { useIsOperator } from '@/components/session/use-is-operator';
import { Dialog } from '@/components/ui/dialog';
import { clockTime } from '@/components/watch/format-time';
import type { ToolPin } from '@/lib/protocol';
import { DefinitionDiff } from './definition-diff';
import { useToolPins, useToolPinsSource } from './tool-pins-source';

/** A tool the view opens on (a proposal card's "Review in Tools"). */
export interface ToolFocus {
  participant: string;
  tool: string;
}

interface ToolsViewContext {
  /** Whether this page has a Tools view (the control room does; the inbox across spaces does not). */
  available: boolean;
  /** Tools whose definition changed since it was trusted. */
  changed: number;
  open(focus?: ToolFocus): void;
}

const Context = createContext<ToolsViewContext>({ available: false, changed: 0, open: () => undefined });

/** Opens the Tools view from anywhere in the control room: the header, the user menu, a proposal card. */
export function useToolsView(): ToolsViewContext {
  return useContext(Context);
}

/**
 * Owns the Tools view: every member may read the space's pinned tool definitions (`GET /api/spaces/{space}/tools`,
 * the server's rule); operators alone accept a changed one, and only they see Accept. The pins are read while the
 * control room is open, so the header can say how many changed.
 */
export function ToolsViewProvider({ children }: { children: ReactNode }) {
  const { pins } = useToolPins();
  const changed = useMemo(() => pins?.filter((pin) => pin.changed).length ?? 0, [pins]);
  // null: closed; undefined: open on the whole list.
  const [focus, setFocus] = useState<ToolFocus | undefined | null>(null);
  const open = useCallback((next?: ToolFocus) => setFocus(next), []);
  const value = useMemo(() => ({ available: true, changed, open }), [changed, open]);
  return (
    <Context value={value}>
      {children}
      <Dialog
        open={focus !== null}
        onClose={() => setFocus(null)}
        size="wide"
        title="Tools"
        description="Each participant's tools as first seen (pinned) and as listed now. A tool whose definition changed since it was trusted is approved by no rule until an operator accepts it."
      >
        {focus !== null && <ToolsPanel focus={focus} />}
      </Dialog>
    </Context>
  );
}

const HEADER_BUTTON = 'rounded border px-2 py-1 text-xs hover:bg-slate-800 focus:outline-none focus-visible:ring-2 focus-visible:ring-sky-400';

/** The header's entry: "Tools", amber with how many changed. */
export function ToolsButton() {
  const { changed, open } = useToolsView();
  return (
    <button
      type="button"
      onClick={() => open()}
      className={`${HEADER_BUTTON} ${changed > 0 ? 'border-amber-600 text-amber-200' : 'border-slate-700 text-slate-300'}`}
    >
      Tools{changed > 0 ? ` · ${changed} changed` : ''}
    </button>
  );
}

/** "Tools", with how many changed: the label wherever the view is offered. */
export function toolsLabel(changed: number): string {
  return changed > 0 ? `Tools · ${changed} changed` : 'Tools';
}

/** Today's times by the clock, older ones with their date (the full time is the element's title). */
function when(iso: string): ReactNode {
  const time = new Date(iso);
  const today = new Date().toDateString() === time.toDateString();
  return (
    <time dateTime={iso} title={time.toLocaleString()}>
      {today ? clockTime(time.getTime()) : `${time.toLocaleDateString()} ${clockTime(time.getTime())}`}
    </time>
  );
}

const short = (hash: string) => hash.slice(0, 12);

function ToolsPanel({ focus }: { focus?: ToolFocus }) {
  const { pins, error } = useToolPins();
  const mayAccept = useIsOperator();
  // Changed tools first (what needs a decision), then by participant and name as the server lists them.
  const ordered = useMemo(() => (pins ? [...pins].sort((a, b) => Number(b.changed) - Number(a.changed)) : undefined), [pins]);
  const changed = pins?.filter((pin) => pin.changed).length ?? 0;
  const participants = new Set(pins?.map((pin) => pin.participant)).size;

  return (
    <div className="flex flex-col gap-3 p-4 pt-0">
      <p role="status" className="text-xs text-slate-400">
        {pins === undefined
          ? error
            ? ''
            : 'Reading the tools…'
          : pins.length === 0
            ? 'No tool listed in this space yet: a tool is pinned the first time a participant lists it.'
            : `${pins.length} tool${pins.length === 1 ? '' : 's'} from ${participants} participant${participants === 1 ? '' : 's'}; ${
                changed === 0 ? 'none changed since trusted.' : `${changed} changed since trusted: no rule approves ${changed === 1 ? 'it' : 'them'}.`
              }`}
      </p>
      {error && <p className="text-xs text-red-300">The tools could not be read: {error}</p>}
      {ordered && ordered.length > 0 && (
        <ul aria-label="Tools of the space" className="flex max-h-[65vh] flex-col gap-2 overflow-y-auto">
          {ordered.map((pin) => (
            <ToolRow
              key={`${pin.participant}\n${pin.name}`}
              pin={pin}
              mayAccept={mayAccept}
              focused={focus !== undefined && focus.participant === pin.participant && focus.tool === pin.name}
            />
          ))}
        </ul>
      )}
    </div>
  );
}

function ToolRow({ pin, mayAccept, focused }: { pin: ToolPin; mayAccept: boolean; focused: boolean }) {
  const source = useToolPinsSource();
  const [accepting, setAccepting] = useState(false);
  const [row, setRow] = useState<HTMLLIElement | null>(null);
  useEffect(() => {
    if (focused) row?.scrollIntoView({ block: 'nearest' });
  }, [focused, row]);

  const accept = () => {
    setAccepting(true);
    source
      .accept(pin.participant, pin.name)
      .then(
        () =>
          toast(`Accepted ${pin.name}'s new definition`, { description: `${pin.participant}'s ${pin.name} is pinned as it is now: rules apply to it again.` }),
        (e: Error) => toast.error(`${pin.name}'s definition was not accepted`, { description: e.message }),
      )
      .finally(() => setAccepting(false));
  };

  return (
    <li
      ref={setRow}
      aria-label={`${pin.name} of ${pin.participant}`}
      aria-current={focused ? 'true' : undefined}
      className={`flex flex-col gap-1.5 rounded border p-2 text-xs ${pin.changed ? 'border-amber-700 bg-amber-950/20' : 'border-slate-800'} ${
        focused ? 'ring-1 ring-sky-600' : ''
      }`}
    >
      <div className="flex flex-wrap items-center gap-2">
        <span className="font-mono font-semibold text-slate-100">{pin.name}</span>
        <span className="text-slate-400">
          of <span className="font-mono text-slate-200">{pin.participant}</span>
        </span>
        {pin.changed ? (
          <span className="rounded bg-amber-900/70 px-1.5 py-px font-medium text-amber-100">changed since trusted</span>
        ) : (
          <span className="rounded bg-slate-800 px-1.5 py-px text-slate-300">as pinned</span>
        )}
        {pin.changed && mayAccept && (
          <button
            type="button"
            disabled={accepting}
            onClick={accept}
            data-autofocus={focused ? true : undefined}
            title="Pin the current definition: rules approve calls of it again. Read the diff first."
            className="ml-auto rounded bg-amber-700 px-2 py-1 font-medium text-white hover:bg-amber-600 focus:outline-none focus-visible:ring-2 focus-visible:ring-sky-400 disabled:opacity-60"
          >
            {accepting ? 'Accepting…' : 'Accept'}
          </button>
        )}
      </div>
      <dl className="grid grid-cols-[auto_minmax(0,1fr)] gap-x-3 gap-y-0.5 text-slate-400 sm:grid-cols-[auto_minmax(0,1fr)_auto_minmax(0,1fr)]">
        <dt>current hash</dt>
        <dd className="truncate font-mono text-slate-300" title={pin.hash}>
          {short(pin.hash)}
        </dd>
        <dt>pinned hash</dt>
        <dd className="truncate font-mono text-slate-300" title={pin.pinned_hash}>
          {short(pin.pinned_hash)}
        </dd>
        <dt>first seen</dt>
        <dd className="text-slate-300">{when(pin.first_seen_at)}</dd>
        <dt>changed at</dt>
        <dd className="text-slate-300">{pin.changed_at ? when(pin.changed_at) : '—'}</dd>
        <dt>accepted by</dt>
        <dd className="text-slate-300">
          {pin.accepted_by ? (
            <>
              <span className="font-mono">{pin.accepted_by}</span>
              {pin.accepted_at && <> at {when(pin.accepted_at)}</>}
            </>
          ) : (
            '—'
          )}
        </dd>
      </dl>
      {pin.changed && (
        <>
          <DefinitionDiff pin={pin} />
          {!mayAccept && <p className="text-slate-400">An operator of the space accepts the new definition; until then a person decides every call.</p>}
        </>
      )}
    </li>
  );
}
