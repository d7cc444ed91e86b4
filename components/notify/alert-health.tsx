'use client';

import { createContext, useCallback, useContext, useMemo, useState, type ReactNode } from 'react';
import { spaceApi } from '@/components/session/space-api';
import { useSpaceSession } from '@/components/session/space-session';
import { useIsOperator } from '@/components/session/use-is-operator';
import { useVisiblePoll } from '@/components/session/use-visible-poll';
import type { ListedWebhook, WebhookList } from '@/lib/protocol';
import { usePushSubscription, type PushSubscriptionControl } from './use-push-subscription';
import { WebhooksDialog } from './webhooks-dialog';

/** How often an operator's page reads the webhooks again, for the header's signal. */
const WEBHOOKS_POLL_MS = 10_000;
/** …and while the Webhooks dialog is open, where each one's latest delivery is shown. */
const WEBHOOKS_OPEN_POLL_MS = 2_000;

/** The space's alert channels as this page sees them: the webhooks (operators), this device's push, what is failing. */
export interface AlertHealth {
  operator: boolean;
  /** Undefined until read (and for anyone but an operator). */
  webhooks?: readonly ListedWebhook[];
  failingWebhooks: number;
  /** Reads the webhooks now (after an add, a removal or a test). */
  refreshWebhooks: () => Promise<void>;
  webhooksOpen: boolean;
  openWebhooks: () => void;
  closeWebhooks: () => void;
  push: PushSubscriptionControl;
  /** Channels failing: webhooks, and this device's push. */
  failing: number;
}

const AlertHealthContext = createContext<AlertHealth | null>(null);

/**
 * Watches the space's alert channels for the header: an operator's page reads the webhooks (each flagged `failing`
 * by the server when its latest attempt failed) every 10 s, every 2 s while their dialog is open; this device's push
 * subscription says itself whether its pushes fail. Holds the Webhooks dialog, so the header and the menu open the same.
 */
export function AlertHealthProvider({ children }: { children: ReactNode }) {
  const { space, token } = useSpaceSession();
  const operator = useIsOperator();
  const push = usePushSubscription(space, token);
  const [webhooks, setWebhooks] = useState<readonly ListedWebhook[]>();
  const [webhooksOpen, setWebhooksOpen] = useState(false);

  const poll = useCallback(
    async (live: () => boolean) => {
      if (!operator) return;
      const answer = await spaceApi<WebhookList>(space, token, '/webhooks');
      if (live()) setWebhooks(answer.webhooks);
    },
    [space, token, operator],
  );
  useVisiblePoll(poll, webhooksOpen ? WEBHOOKS_OPEN_POLL_MS : WEBHOOKS_POLL_MS);
  const refreshWebhooks = useCallback(() => poll(() => true), [poll]);

  const value = useMemo((): AlertHealth => {
    const failingWebhooks = operator ? (webhooks?.filter((w) => w.failing).length ?? 0) : 0;
    return {
      operator,
      webhooks: operator ? webhooks : undefined,
      failingWebhooks,
      refreshWebhooks,
      webhooksOpen,
      openWebhooks: () => setWebhooksOpen(true),
      closeWebhooks: () => setWebhooksOpen(false),
      push,
      failing: failingWebhooks + (push.failure ? 1 : 0),
    };
  }, [operator, webhooks, refreshWebhooks, webhooksOpen, push]);

  return (
    <AlertHealthContext.Provider value={value}>
      {children}
      {operator && <WebhooksDialog open={webhooksOpen} onClose={() => setWebhooksOpen(false)} />}
    </AlertHealthContext.Provider>
  );
}

export function useAlertHealth(): AlertHealth {
  const health = useContext(AlertHealthContext);
  if (!health) throw new Error('useAlertHealth must be used inside <AlertHealthProvider>');
  return health;
}

/** `1 webhook failing`, `2 webhooks failing`. */
export function failingWebhooksText(count: number): string {
  return `${count} webhook${count === 1 ? '' : 's'} failing`;
}
