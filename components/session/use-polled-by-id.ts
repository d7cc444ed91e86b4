'use client';

import { useCallback, useState, type Dispatch, type SetStateAction } from 'react';
import { spaceApi } from './space-api';
import { useSpaceSession } from './space-session';
import { useVisiblePoll } from './use-visible-poll';

/**
 * Polls a list endpoint of the space (`path` under `/api/spaces/{space}`) while the tab is visible, keyed by `idOf`;
 * a failed poll keeps the last answer until the next. The setter lets an action put the server's answer in at once.
 * Pass stable `listOf` and `idOf` (module-level).
 */
export function usePolledById<T>(
  path: string,
  listOf: (body: never) => readonly T[],
  idOf: (item: T) => string,
  intervalMs: number,
): [ReadonlyMap<string, T>, Dispatch<SetStateAction<ReadonlyMap<string, T>>>] {
  const { space, token } = useSpaceSession();
  const [byId, setById] = useState<ReadonlyMap<string, T>>(new Map());
  const poll = useCallback(
    async (live: () => boolean) => {
      const list = listOf(await spaceApi<never>(space, token, path));
      if (live()) setById(new Map(list.map((item) => [idOf(item), item])));
    },
    [space, token, path, listOf, idOf],
  );
  useVisiblePoll(poll, intervalMs);
  return [byId, setById];
}
