'use client';

import { NOTIFY_LABEL } from '@/components/attention/notify-toggle';
import { useNotifyOptIn } from '@/components/attention/use-notify-opt-in';
import { useAuditView } from '@/components/audit/audit-view';
import { failingWebhooksText, useAlertHealth } from '@/components/notify/alert-health';
import { PUSH_LABEL } from '@/components/notify/push-toggle';
import { useRules } from '@/components/rules/rules-context';
import { useSpace, useSpaceSession } from '@/components/session/space-session';
import { MenuButton, type MenuItem } from '@/components/ui/menu-button';
import { toolsLabel, useToolsView } from '@/components/tools/tools-view';
import { useMediaQuery, WIDE_HEADER } from './use-media-query';
import { useSignOut } from './use-sign-out';

/**
 * The header's user menu: who I am signed in as, all spaces, and Sign out (told on the home page once done). On a
 * phone, where the header keeps one row, it also holds what the header shows beside it on wider screens — commands,
 * notifications, push, webhooks, tools, audit log, rules — and carries the count of failing alert channels.
 */
export function AccountMenu({ onCommands }: { onCommands: () => void }) {
  const { space } = useSpaceSession();
  const me = useSpace((s) => s.connection.me) ?? 'me';
  const wide = useMediaQuery(WIDE_HEADER);
  const notify = useNotifyOptIn();
  const health = useAlertHealth();
  const audit = useAuditView();
  const rules = useRules();
  const tools = useToolsView();
  const signOut = useSignOut();

  const { push, failingWebhooks } = health;
  const pushFailing = push.state === 'on' && push.failure !== undefined;
  const phoneItems: (MenuItem | false)[] = [
    { key: 'commands', label: 'Commands', onSelect: onCommands },
    { key: 'notify', label: NOTIFY_LABEL[notify.state], onSelect: notify.toggle },
    { key: 'push', label: pushFailing ? `Push failing: ${push.failure}` : PUSH_LABEL[push.state], danger: pushFailing, onSelect: push.toggle },
    health.operator && {
      key: 'webhooks',
      label: failingWebhooks > 0 ? `Webhooks · ${failingWebhooksText(failingWebhooks)}` : 'Webhooks',
      danger: failingWebhooks > 0,
      onSelect: health.openWebhooks,
    },
    { key: 'tools', label: toolsLabel(tools.changed), danger: tools.changed > 0, onSelect: () => tools.open() },
    audit.mayRead && { key: 'audit', label: 'Audit log', onSelect: () => audit.open() },
    rules.mayManage && { key: 'rules', label: `Rules${rules.rules.length > 0 ? ` (${rules.rules.length})` : ''}`, onSelect: () => rules.open() },
  ];
  const items: MenuItem[] = [
    ...(wide ? [] : phoneItems.filter((item): item is MenuItem => item !== false)),
    { key: 'home', label: 'All spaces', onSelect: () => window.location.assign('/') },
    { key: 'sign-out', label: `Sign out of ${space}`, onSelect: signOut },
  ];
  // On a phone the header's failing signals are inside the menu: its button carries their count.
  const flagged = wide ? 0 : health.failing;
  return (
    <div className="ml-auto flex shrink-0 items-center gap-1.5 sm:ml-0">
      <span className="hidden text-xs text-slate-400 md:inline">signed in as</span>
      <MenuButton
        label={`Signed in as ${me}${flagged > 0 ? `; ${flagged} alert channel${flagged === 1 ? '' : 's'} failing` : ''}`}
        buttonText={flagged > 0 ? `${me} · ⚠ ${flagged}` : me}
        items={items}
        buttonClassName={`max-w-[10rem] truncate rounded border px-2 py-1 font-mono text-xs hover:bg-slate-800 focus:outline-none focus-visible:ring-2 focus-visible:ring-sky-400 aria-expanded:bg-slate-800 ${
          flagged > 0 ? 'border-red-700 text-red-200' : 'border-slate-700 text-slate-200'
        }`}
      />
    </div>
  );
}
