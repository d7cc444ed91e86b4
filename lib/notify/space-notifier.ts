import { BoundedMap } from '../collections/bounded-map';
import type { Participant } from '../gateway/participant';
import type { Space } from '../gateway/space';
import { isDangerousRisk, type Envelope, type ToolSecurity } from '../protocol';
import type { Proposal } from '../sdk/model/proposals-slice';
import type { ActionTokens, ProposalAction } from './action-token';
import type { AlertChannels } from './alert-channels';
import { confirmFirst } from './confirm-first';
import { DropCounter } from './drop-counter';
import type { KeyedQueue } from './keyed-queue';
import { mayDecide, notificationActions } from './proposal-decision';
import { ProposalWatch, WATCHED_KINDS, type ProposalEvent } from './proposal-watch';
import { decidedPush, pendingPush, proposalPagePath, type PushMessage } from './push-message';
import { askedPush, QUESTION_ASKED_EVENT, questionPagePath, questionWebhookBody, settledPush } from './question-notifications';
import { concernsQuestions, mayAnswerQuestion, QuestionWatch, type QuestionEvent } from './question-watch';
import type { PushSender, PushUrgency } from './push-sender';
import type { PushSubscriptions, StoredPushSubscription } from './push-subscriptions';
import { deliverWebhook, type WebhookRetryPolicy } from './webhook-delivery';
import { webhookBody, webhookEvent } from './webhook-payload';
import type { Webhooks } from './webhooks';

/** Envelopes waiting for the notifier's next turn; past it they are dropped (and counted), never the gateway slowed. */
const MAX_INBOX = 10_000;
/** Proposals whose pending push went out, remembered so their outcome replaces it. */
const ANNOUNCED_CAP = 10_000;

export interface SpaceNotifierDeps {
  subscriptions: PushSubscriptions;
  webhooks: Webhooks;
  tokens: ActionTokens;
  push: PushSender;
  queue: KeyedQueue;
  webhookRetry: WebhookRetryPolicy;
  /** Told of each push's and webhook's outcome: what is failing, for the devices and the operators. */
  channels: AlertChannels;
  now: () => number;
  /** The server's public origin, for the links webhooks carry. */
  baseUrl: () => string;
  /** Aborted when the server closes: retries stop. */
  stop: AbortSignal;
  /** Asked once per sync before its sends go (cluster mode: whether this owner's fence still holds); they go on true. */
  mayAnnounce?: () => Promise<boolean>;
  /** Whether a participant's tool was redefined since it was pinned: its calls are confirmed on the page only. */
  toolChanged?: (participant: string, tool: string) => boolean;
  log: (line: string) => void;
}

/**
 * Notifications of one space. It observes the envelopes routed there (`Space.observe`) and only queues them; on the
 * next turn of the event loop it feeds them to its ProposalWatch and, for each new pending proposal and each
 * decision, queues a Web Push to every subscribed device of a participant who could decide it (with signed
 * Approve / Reject links where allowed) and a POST to each of the space's webhooks.
 */
export class SpaceNotifier {
  readonly watch = new ProposalWatch();
  /** Questions (`space__ask_human`'s, anyone's): pushed like proposals, without actions; `question.asked` to webhooks. */
  readonly questions = new QuestionWatch();
  private inbox: Envelope[] = [];
  private scheduled?: NodeJS.Immediate;
  private readonly announced = new BoundedMap<string, true>(ANNOUNCED_CAP);
  private readonly unobserve: () => void;
  private readonly drops: DropCounter;
  /** This sync's answer of `mayAnnounce`, which all its sends wait for. */
  private announcing?: Promise<boolean>;

  constructor(
    readonly space: Space,
    private readonly deps: SpaceNotifierDeps,
  ) {
    this.drops = new DropCounter('envelopes (the notifier fell behind)', deps.log);
    // What is still pending from before a restart can be acted on; it was announced then, so nothing is sent now.
    for (const { envelope } of space.history.toArray()) {
      if (envelope && WATCHED_KINDS.has(envelope.kind)) this.watch.apply(envelope, deps.now());
      else if (envelope) this.questions.apply(envelope, deps.now());
    }
    this.unobserve = space.observe((envelope) => {
      if (!WATCHED_KINDS.has(envelope.kind) && !concernsQuestions(envelope)) return;
      if (this.inbox.length >= MAX_INBOX) return void this.drops.count();
      this.inbox.push(envelope);
      this.scheduled ??= setImmediate(() => this.sync());
    });
  }

  /** Applies what was routed so far (the action endpoint calls it first, to decide on the current state). */
  sync(): void {
    if (this.scheduled) clearImmediate(this.scheduled);
    this.scheduled = undefined;
    const inbox = this.inbox;
    this.inbox = [];
    this.announcing = undefined;
    for (const envelope of inbox) {
      if (!WATCHED_KINDS.has(envelope.kind)) {
        for (const event of this.questions.apply(envelope, this.deps.now())) this.announceQuestion(event);
        continue;
      }
      for (const event of this.watch.apply(envelope, this.deps.now())) this.announce(event);
    }
  }

  stop(): void {
    this.unobserve();
    if (this.scheduled) clearImmediate(this.scheduled);
    this.inbox = [];
  }

  private announce(event: ProposalEvent): void {
    const { proposal } = event;
    this.postWebhooks(event);
    // An outcome replaces the pending push; when none went out (before a restart), there is nothing to replace.
    if (event.type === 'pending') this.announced.set(proposal.id, true);
    else if (!this.announced.delete(proposal.id)) return;
    const urgency: PushUrgency = event.type === 'pending' && isDangerousRisk(event.risk) ? 'high' : 'normal';
    for (const subscription of this.deps.subscriptions.all(this.space.id)) {
      const participant = this.decider(subscription.participant);
      if (!participant || !mayDecide(participant, proposal)) continue;
      const message =
        event.type === 'pending'
          ? pendingPush(this.space.id, event, this.tokensFor(participant, event), this.mustConfirm(event.proposal, event.risk))
          : decidedPush(this.space.id, event);
      this.enqueue(`push:${subscription.endpoint}`, () => this.send(subscription, message, urgency));
    }
  }

  /**
   * A new question to every subscribed device of a participant who could answer it (its text, no actions: the answer
   * is typed in the control room) and to each webhook (`question.asked`); its answer or withdrawal replaces the push.
   */
  private announceQuestion(event: QuestionEvent): void {
    const { message } = event.question;
    if (event.type === 'asked') {
      this.announced.set(message.id, true);
      this.postQuestionWebhooks(event);
    } else if (!this.announced.delete(message.id)) return;
    const push = event.type === 'asked' ? askedPush(this.space.id, event) : settledPush(this.space.id, event);
    for (const subscription of this.deps.subscriptions.all(this.space.id)) {
      const participant = this.decider(subscription.participant);
      if (!participant || !mayAnswerQuestion(participant, event.question)) continue;
      this.enqueue(`push:${subscription.endpoint}`, () => this.send(subscription, push, 'normal'));
    }
  }

  private postQuestionWebhooks(event: QuestionEvent): void {
    const { webhooks } = this.deps;
    const id = event.question.message.id;
    const url = `${this.deps.baseUrl()}${questionPagePath(this.space.id, id)}`;
    for (const webhook of webhooks.all()) {
      // The delivery log's `proposal_id` names what it told of: here the question's chat.
      const delivery = { event: QUESTION_ASKED_EVENT, proposalId: id, body: questionWebhookBody(webhook.format, this.space.id, event, url) };
      const { webhookRetry, now, stop, channels } = this.deps;
      this.enqueue(`webhook:${webhook.id}`, async () => {
        await deliverWebhook(webhooks, webhook, delivery, webhookRetry, now, stop, channels.webhookTurnedFailing);
      });
    }
  }

  /**
   * Whether approving must happen in the control room, not from a notification: a dangerous or confirm-first tool
   * (or one of undeclared risk), or one whose definition changed since it was pinned.
   */
  mustConfirm(proposal: Proposal, risk: ToolSecurity | undefined): boolean {
    if (confirmFirst(risk)) return true;
    return proposal.target !== undefined && proposal.toolName !== undefined && this.deps.toolChanged?.(proposal.target, proposal.toolName) === true;
  }

  /** A participant of the space who may still act (not kicked). */
  private decider(id: string): Participant | undefined {
    return this.space.state.kicked.includes(id) ? undefined : this.space.participants.get(id);
  }

  private tokensFor(participant: Participant, event: ProposalEvent): Partial<Record<ProposalAction, string>> {
    const { proposal } = event;
    const hash = this.watch.contentHash(proposal.id);
    if (hash === undefined) return {};
    const claims = { space: this.space.id, proposal: proposal.id, participant: participant.id, hash };
    return Object.fromEntries(
      notificationActions(participant, proposal, this.mustConfirm(proposal, event.risk)).map((action) => [
        action,
        this.deps.tokens.issue({ ...claims, action }, this.deps.now()),
      ]),
    );
  }

  private async send(subscription: StoredPushSubscription, message: PushMessage, urgency: PushUrgency): Promise<void> {
    const outcome = await this.deps.push.send(subscription, message, urgency);
    if (outcome.ok || outcome.gone) this.deps.channels.pushSettled(subscription.endpoint);
    else this.deps.channels.pushFailed(subscription, outcome.error);
    if (outcome.ok) return;
    if (outcome.gone) this.deps.subscriptions.forget(this.space.id, subscription.endpoint);
    // The endpoint is a capability URL: the log names whose device it was, never the URL.
    this.deps.log(`push to a device of ${subscription.participant} failed: ${outcome.error}${outcome.gone ? ' (subscription removed)' : ''}`);
  }

  private postWebhooks(event: ProposalEvent): void {
    const { webhooks } = this.deps;
    const url = `${this.deps.baseUrl()}${proposalPagePath(this.space.id, event.proposal.id)}`;
    for (const webhook of webhooks.all()) {
      const delivery = { event: webhookEvent(event), proposalId: event.proposal.id, body: webhookBody(webhook.format, this.space.id, event, url) };
      const { webhookRetry, now, stop, channels } = this.deps;
      this.enqueue(`webhook:${webhook.id}`, async () => {
        await deliverWebhook(webhooks, webhook, delivery, webhookRetry, now, stop, channels.webhookTurnedFailing);
      });
    }
  }

  /** Queues a send, to go once this sync's `mayAnnounce` said yes. */
  private enqueue(key: string, send: () => Promise<void>): void {
    const { mayAnnounce } = this.deps;
    if (!mayAnnounce) return void this.deps.queue.push(key, send);
    const allowed = (this.announcing ??= mayAnnounce().catch((error: Error) => {
      this.deps.log(`sends dropped: cannot tell whether this server may send: ${error.message}`);
      return false;
    }));
    this.deps.queue.push(key, async () => {
      if (await allowed) await send();
    });
  }
}
