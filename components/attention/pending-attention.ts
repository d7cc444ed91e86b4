'use client';

import { useEffect, useRef } from 'react';
import { useSpace, useSpaceSession } from '@/components/session/space-session';
import { BoundedMap } from '@/lib/collections';
import { pendingProposals, type Proposal } from '@/lib/store';
import { jumpToProposal } from '@/components/proposals/jump-to-proposal';
import { badgedIcon, pendingTitle } from './pending-badge';
import { useNotifyOptIn } from './use-notify-opt-in';

/** Proposals already notified about (or present before this page looked), so none is announced twice. */
const ANNOUNCED_CAP = 2_000;
const ICON_URL = '/icon.svg';

function iconLink(): HTMLLinkElement {
  const existing = document.querySelector<HTMLLinkElement>('link[rel="icon"][data-badge]');
  if (existing) return existing;
  // Ours goes last, so it wins over the icon Next put in the head.
  const link = document.createElement('link');
  link.rel = 'icon';
  link.dataset.badge = '';
  document.head.append(link);
  return link;
}

function announce(p: Proposal): void {
  const risk = p.risk?.risk_level ? `risk: ${p.risk.risk_level}${p.risk.confirmation_required ? ', confirmation required' : ''}` : 'risk: undeclared';
  const notification = new Notification(`${p.proposer} proposes ${p.toolName ?? p.method}`, {
    body: `${risk} · to ${p.targets.join(', ') || 'anyone'}`,
    tag: p.id,
  });
  notification.onclick = () => {
    window.focus();
    jumpToProposal(p.id);
    notification.close();
  };
}

/**
 * What tells a supervisor something waits when they are not looking at the queue: the tab's title and favicon carry
 * the number pending, and, once they opted in, a system notification for each new proposal while the tab is hidden
 * (with its risk and proposer; clicking it opens the card). Renders nothing: a component of its own, so a change
 * of the queue re-renders it alone.
 */
export function PendingAttention(): null {
  const { space } = useSpaceSession();
  const pending = useSpace(pendingProposals);
  const { enabled } = useNotifyOptIn();
  const announced = useRef<BoundedMap<string, true>>(undefined);

  useEffect(() => {
    document.title = pendingTitle(space, pending.length);
    let current = true;
    void badgedIcon(ICON_URL, pending.length).then(
      (href) => current && (iconLink().href = href),
      () => undefined, // an icon that cannot be drawn leaves the plain one
    );
    return () => {
      current = false;
    };
  }, [space, pending.length]);

  useEffect(() => {
    // The first look only remembers what already waits: a reload must not announce the whole queue again.
    if (!announced.current) {
      announced.current = new BoundedMap(ANNOUNCED_CAP);
      for (const p of pending) announced.current.set(p.id, true);
      return;
    }
    for (const p of pending) {
      if (announced.current.has(p.id)) continue;
      announced.current.set(p.id, true);
      if (enabled && document.visibilityState === 'hidden') announce(p);
    }
  }, [pending, enabled]);
  return null;
}
