import { ARCHIVE_DIRECTORY, NOTES_DIRECTORY, SCRIBE_KEEP_DRAFTS } from './demo-defaults';

/** A meeting the scribe keeps notes for, with the canned material its drafts are made of. */
export interface MeetingTopic {
  slug: string;
  title: string;
  agenda: string[];
  notes: string[];
  actions: string[];
}

/** The meetings the scribe rotates through when nobody asked for anything. */
export const MEETING_TOPICS: readonly MeetingTopic[] = [
  {
    slug: 'standup',
    title: 'Daily stand-up',
    agenda: ['Yesterday', 'Today', 'Blockers'],
    notes: ['Gateway pause enforcement merged.', 'Control room proposal queue needs keyboard shortcuts.'],
    actions: ['Add j/k navigation to the proposal queue', 'Review the streams PR'],
  },
  {
    slug: 'design-review',
    title: 'Design review: approvals UX',
    agenda: ['Risk badges', 'Edit-then-approve', 'Always-allow rules'],
    notes: ['Dangerous tools always ask, even with always-allow.', 'Show a diff for write_file proposals.'],
    actions: ['Prototype the diff view', 'Write the always-allow rule format'],
  },
  {
    slug: 'retro',
    title: 'Sprint retrospective',
    agenda: ['What went well', 'What did not', 'What to try'],
    notes: ['Real-gateway tests caught two routing bugs.', 'Flaky timing in one e2e test.'],
    actions: ['Replace sleeps with polling in the e2e suite'],
  },
  {
    slug: 'planning',
    title: 'Sprint planning',
    agenda: ['Goals', 'Capacity', 'Risks'],
    notes: ['Goal: telemetry charts and the audit export.', 'One engineer out on Friday.'],
    actions: ['Split the telemetry story', 'Estimate the audit export'],
  },
  {
    slug: 'incident-review',
    title: 'Incident review: stuck proposals',
    agenda: ['Timeline', 'Root cause', 'Follow-ups'],
    notes: ['Proposals waited with nobody online to approve.', 'Agents now withdraw after a timeout.'],
    actions: ['Alert when a proposal waits over a minute', 'Document the withdraw reason codes'],
  },
];

/** One step of the scribe's work: a tool call to propose, with what to think and say around it. */
export interface ScribeTask {
  kind: 'draft' | 'action-items' | 'tidy';
  /** The meeting the note is about. */
  topic: MeetingTopic;
  /** `reasoning/start` message. */
  title: string;
  /** Streamed as `reasoning/thought`s before proposing. */
  thoughts: string[];
  /** The note the task is about. */
  path: string;
  /** Tools of the official filesystem server: write a note, or move one into the archive. */
  tool: 'write_file' | 'move_file';
  arguments: { path: string; content: string } | { source: string; destination: string };
  /** Why the scribe wanted it: said in chat if the proposal is rejected. */
  why: string;
  /** The chat that asked for it, if any (what the reasoning correlates to). */
  trigger?: string;
}

/** How a proposed task ended. `interrupted` means "try the same task again" (e.g. refused while paused). */
export type TaskOutcome = 'done' | 'rejected' | 'failed' | 'timeout' | 'interrupted';

interface Draft {
  path: string;
  topic: MeetingTopic;
  content: string;
  hasActionItems: boolean;
  /** A human declined its action items: do not ask again. */
  actionItemsDeclined: boolean;
  /** A human declined archiving it: keep it. */
  kept: boolean;
}

/**
 * The scribe's notebook: which notes it has drafted, what is left to do, and what people asked for. It picks
 * the next task (a requested topic first, then action items for the latest draft, then tidying the oldest
 * draft away into the archive once there are more than `SCRIBE_KEEP_DRAFTS`, else the next meeting of the rotation)
 * and learns from each outcome: a rejected draft is dropped, declined action items or a declined move are not asked
 * again.
 *
 * @example
 * const notebook = new ScribeNotebook();
 * const task = notebook.next(new Date()); // draft notes/2026-11-22-standup.md
 * notebook.settle(task, 'done');
 */
export class ScribeNotebook {
  private rotation = 0;
  private readonly requests: { topic: MeetingTopic; chatId: string }[] = [];
  private drafts: Draft[] = [];

  constructor(private readonly topics: readonly MeetingTopic[] = MEETING_TOPICS) {}

  /** Someone asked (in chat) for notes on a topic: it comes next. */
  request(subject: string, chatId: string): MeetingTopic {
    const topic = requestedTopic(subject);
    this.requests.push({ topic, chatId });
    return topic;
  }

  /** What to do next; the notebook changes only when the outcome is settled. */
  next(now: Date): ScribeTask {
    const request = this.requests[0];
    if (request) return this.draftTask(request.topic, now, request.chatId);
    const pendingActions = this.drafts.findLast((d) => !d.hasActionItems && !d.actionItemsDeclined);
    if (pendingActions) return actionItemsTask(pendingActions);
    const removable = this.drafts.filter((d) => !d.kept);
    if (this.drafts.length > SCRIBE_KEEP_DRAFTS && removable.length > 0) return tidyTask(removable[0], this.drafts.length);
    return this.draftTask(this.topics[this.rotation % this.topics.length], now);
  }

  /** Learns from how a task ended. */
  settle(task: ScribeTask, outcome: TaskOutcome): void {
    if (outcome === 'interrupted') return;
    const draft = this.drafts.find((d) => d.path === task.path);
    switch (task.kind) {
      case 'draft':
        if (task.trigger) this.requests.shift();
        else this.rotation++;
        if (outcome === 'done') this.drafts.push(newDraft(task));
        return;
      case 'action-items':
        if (!draft) return;
        if (outcome === 'done' && 'content' in task.arguments) Object.assign(draft, { hasActionItems: true, content: task.arguments.content });
        else draft.actionItemsDeclined = true;
        return;
      case 'tidy':
        // Failed means it was already gone: forget it either way.
        if (outcome === 'done' || outcome === 'failed') this.drafts = this.drafts.filter((d) => d !== draft);
        else if (draft) draft.kept = true;
        return;
    }
  }

  /** The drafts the scribe believes exist, oldest first. */
  get draftPaths(): string[] {
    return this.drafts.map((d) => d.path);
  }

  private draftTask(topic: MeetingTopic, now: Date, trigger?: string): ScribeTask {
    const path = this.freePath(`${NOTES_DIRECTORY}/${now.toISOString().slice(0, 10)}-${topic.slug}`);
    return {
      kind: 'draft',
      topic,
      title: `Drafting notes for "${topic.title}"`,
      thoughts: [
        trigger ? `I was asked for notes on "${topic.title}".` : `Next in my rotation: ${topic.title}.`,
        `Agenda: ${topic.agenda.join(', ')}. I'll capture the key points under each.`,
        `I cannot write files myself, so I'll propose write_file for ${path} and wait for approval.`,
      ],
      path,
      tool: 'write_file',
      arguments: { path, content: draftContent(topic, now) },
      why: `I wanted to start the notes for "${topic.title}" so its decisions are written down somewhere.`,
      ...(trigger && { trigger }),
    };
  }

  /** The path with a numeric suffix if a draft of mine already has it (the same meeting twice in a day). */
  private freePath(base: string): string {
    const taken = new Set(this.draftPaths);
    let path = `${base}.md`;
    for (let n = 2; taken.has(path); n++) path = `${base}-${n}.md`;
    return path;
  }
}

function newDraft(task: ScribeTask): Draft {
  const content = 'content' in task.arguments ? task.arguments.content : '';
  return { path: task.path, topic: task.topic, content, hasActionItems: false, actionItemsDeclined: false, kept: false };
}

function actionItemsTask(draft: Draft): ScribeTask {
  const items = draft.topic.actions.map((action) => `- [ ] ${action}`).join('\n');
  return {
    kind: 'action-items',
    topic: draft.topic,
    title: `Adding action items to ${draft.path}`,
    thoughts: [
      `${draft.path} has notes but no action items yet.`,
      `From the discussion: ${draft.topic.actions.join('; ')}.`,
      'Rewriting the whole file with an "Action items" section appended.',
    ],
    path: draft.path,
    tool: 'write_file',
    arguments: { path: draft.path, content: `${draft.content}\n## Action items\n${items}\n` },
    why: `Notes without action items get forgotten; I wanted ${draft.path} to say who does what next.`,
  };
}

function tidyTask(draft: Draft, draftCount: number): ScribeTask {
  return {
    kind: 'tidy',
    topic: draft.topic,
    title: `Tidying up: ${draft.path}`,
    thoughts: [
      `There are ${draftCount} drafts in ${NOTES_DIRECTORY}/; more than the ${SCRIBE_KEEP_DRAFTS} I keep around.`,
      `${draft.path} is the oldest one; the newer drafts cover what matters now.`,
      `Moving it to ${NOTES_DIRECTORY}/${ARCHIVE_DIRECTORY}/ keeps it without cluttering the folder; moves are destructive, so a human confirms.`,
    ],
    path: draft.path,
    tool: 'move_file',
    arguments: { source: draft.path, destination: `${NOTES_DIRECTORY}/${ARCHIVE_DIRECTORY}/${draft.path.split('/').pop()}` },
    why: `I wanted to archive ${draft.path} because it is my oldest draft and the folder is getting cluttered.`,
  };
}

function draftContent(topic: MeetingTopic, now: Date): string {
  return [
    `# ${topic.title} — ${now.toISOString().slice(0, 10)}`,
    '',
    '## Agenda',
    ...topic.agenda.map((item) => `- ${item}`),
    '',
    '## Notes',
    ...topic.notes.map((note) => `- ${note}`),
    '',
  ].join('\n');
}

/** A topic for notes someone asked for in chat: "notes on the budget" → "budget". */
function requestedTopic(subject: string): MeetingTopic {
  const about = /\b(?:on|about|for)\s+(?:the\s+)?(.+)$/i.exec(subject.trim())?.[1] ?? subject;
  const words = about
    .replace(/[^\p{L}\p{N} -]/gu, '')
    .trim()
    .slice(0, 60);
  const title = words ? words.charAt(0).toUpperCase() + words.slice(1) : 'Ad-hoc meeting';
  const slug =
    title
      .toLowerCase()
      .replace(/\s+/g, '-')
      .replace(/[^a-z0-9-]/g, '')
      .replace(/-+/g, '-')
      .replace(/^-|-$/g, '') || 'ad-hoc';
  return {
    slug,
    title,
    agenda: ['Context', 'Discussion', 'Decisions'],
    notes: [`Requested in chat: "${subject.trim().slice(0, 120)}".`],
    actions: [`Follow up on ${title}`],
  };
}
