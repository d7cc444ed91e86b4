'use client';

import { useEffect, useState } from 'react';
import { TextDiff } from '@/components/proposals/text-diff';
import type { ToolDefinitions, ToolPin } from '@/lib/protocol';
import { definitionText } from './definition-text';
import { useToolPinsSource } from './tool-pins-source';

/**
 * What changed in a tool's definition since it was trusted: the pinned definition against the current one, as a
 * line diff (`GET …/tools/{participant}/{tool}/definitions`, fetched once per pair of hashes for the whole page).
 */
export function DefinitionDiff({ pin }: { pin: ToolPin }) {
  const source = useToolPinsSource();
  const [state, setState] = useState<{ key: string; definitions?: ToolDefinitions; error?: string }>();
  const key = [pin.participant, pin.name, pin.pinned_hash, pin.hash].join('\n');

  // biome-ignore lint/correctness/useExhaustiveDependencies: `key` names the pin's identity and hashes; `pin` itself is a new object per listing
  useEffect(() => {
    let live = true;
    source.definitions(pin).then(
      (definitions) => live && setState({ key, definitions }),
      (error: Error) => live && setState({ key, error: error.message }),
    );
    return () => {
      live = false;
    };
  }, [source, key]);

  if (state?.key !== key) return <p className="text-xs text-slate-400">Reading both definitions…</p>;
  if (state.error !== undefined) return <p className="text-xs text-red-300">The definitions could not be read: {state.error}</p>;
  const { pinned, current } = state.definitions!;
  return <TextDiff before={definitionText(pinned)} after={definitionText(current)} label={`${pin.name}: the trusted definition → the current one`} />;
}
