import { maskValue } from '../secrets/secret-masking';
import { WEBHOOK_TEST_EVENT, type WebhookFormat } from '../protocol';
import { riskLabel } from './confirm-first';
import { argumentSummary, outcomeLine, proposalTitle } from './proposal-summary';
import type { ProposalEvent } from './proposal-watch';

/** The event names webhooks receive. */
export type WebhookEvent = `proposal.${ProposalEvent['type']}`;

/** The plain JSON a `json` webhook receives. */
export interface ProposalWebhookBody {
  event: WebhookEvent;
  space: string;
  proposal: {
    id: string;
    proposer: string;
    targets: readonly string[];
    method: string;
    tool: string | null;
    arguments: unknown;
    risk: ProposalEvent['risk'] | null;
  };
  /** When it happened (ISO 8601). */
  at: string;
  /** The proposal in the control room. */
  url: string;
  /** How it ended, for a decided proposal: `approved by human`. */
  outcome?: string;
}

export function webhookEvent(event: ProposalEvent): WebhookEvent {
  return `proposal.${event.type}`;
}

export function proposalWebhookBody(space: string, event: ProposalEvent, url: string): ProposalWebhookBody {
  const { proposal } = event;
  return {
    event: webhookEvent(event),
    space,
    proposal: {
      id: proposal.id,
      proposer: proposal.proposer,
      targets: proposal.targets,
      method: proposal.method,
      tool: proposal.toolName ?? null,
      arguments: maskValue(proposal.arguments ?? null),
      risk: event.risk ?? null,
    },
    at: new Date(event.at).toISOString(),
    url,
    ...(event.type !== 'pending' && { outcome: outcomeLine(event) }),
  };
}

/** Slack's incoming-webhook message (`text` for notifications, `blocks` for the message) with the same facts. */
export function slackWebhookBody(space: string, event: ProposalEvent, url: string) {
  const { proposal } = event;
  const headline = event.type === 'pending' ? proposalTitle(proposal) : `${proposalTitle(proposal)}: ${outcomeLine(event)}`;
  const text = `${headline} in ${space} (${riskLabel(event.risk)})`;
  return {
    text,
    blocks: [
      { type: 'section', text: { type: 'mrkdwn', text: `*${escapeSlack(headline)}*\n${escapeSlack(argumentSummary(proposal.arguments))}` } },
      {
        type: 'context',
        elements: [
          {
            type: 'mrkdwn',
            text: `${escapeSlack(space)} · ${escapeSlack(riskLabel(event.risk))} · to ${escapeSlack(proposal.targets.join(', ') || 'everyone')} · <${url}|open>`,
          },
        ],
      },
    ],
  };
}

export function webhookBody(format: WebhookFormat, space: string, event: ProposalEvent, url: string): unknown {
  return format === 'slack' ? slackWebhookBody(space, event, url) : proposalWebhookBody(space, event, url);
}

/** The plain JSON a `json` webhook receives from "Send test": marked `test: true`, with no proposal. */
export interface TestWebhookBody {
  event: typeof WEBHOOK_TEST_EVENT;
  test: true;
  space: string;
  /** Who asked for it. */
  by: string;
  message: string;
  at: string;
  /** The space's control room. */
  url: string;
}

/**
 * What "Send test" posts: clearly a test (`event: webhook.test`, `test: true`; Slack text starting `[Test]`), so a
 * receiver's automation can drop it, and a person seeing it knows nothing waits for them.
 */
export function testWebhookBody(format: WebhookFormat, space: string, by: string, at: number, url: string): unknown {
  const message = `[Test] MEW Dashboard: a test of this webhook for space ${space}, sent by ${by}. Nothing waits for you.`;
  if (format === 'slack')
    return { text: escapeSlack(message), blocks: [{ type: 'section', text: { type: 'mrkdwn', text: `${escapeSlack(message)} <${url}|open>` } }] };
  const body: TestWebhookBody = { event: WEBHOOK_TEST_EVENT, test: true, space, by, message, at: new Date(at).toISOString(), url };
  return body;
}

/** Slack mrkdwn treats &, < and > as markup. */
export function escapeSlack(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
