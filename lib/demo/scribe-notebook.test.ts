import { describe, expect, it } from 'vitest';
import { SCRIBE_KEEP_DRAFTS } from './demo-defaults';
import { ScribeNotebook, type ScribeTask } from './scribe-notebook';

const NOW = new Date('2026-03-04T10:00:00Z');

/** Runs the notebook for `steps` tasks, settling each as `outcome` says; returns "kind path" per step. */
function play(notebook: ScribeNotebook, steps: number, outcome: (task: ScribeTask) => Parameters<ScribeNotebook['settle']>[1] = () => 'done') {
  const seen: string[] = [];
  for (let i = 0; i < steps; i++) {
    const task = notebook.next(NOW);
    seen.push(`${task.kind} ${task.path}`);
    notebook.settle(task, outcome(task));
  }
  return seen;
}

describe('ScribeNotebook', () => {
  it('drafts, adds action items, and archives the oldest draft once there are too many', () => {
    const notebook = new ScribeNotebook();
    expect(play(notebook, 6)).toHaveLength(6);
    expect(notebook.next(NOW)).toMatchObject({
      kind: 'tidy',
      tool: 'move_file',
      arguments: { source: 'notes/2026-03-04-standup.md', destination: 'notes/archive/2026-03-04-standup.md' },
    });
    expect(play(new ScribeNotebook(), 8)).toEqual([
      'draft notes/2026-03-04-standup.md',
      'action-items notes/2026-03-04-standup.md',
      'draft notes/2026-03-04-design-review.md',
      'action-items notes/2026-03-04-design-review.md',
      'draft notes/2026-03-04-retro.md',
      'action-items notes/2026-03-04-retro.md',
      'tidy notes/2026-03-04-standup.md',
      'draft notes/2026-03-04-planning.md',
    ]);
    expect(SCRIBE_KEEP_DRAFTS).toBe(2);
  });

  it('moves on after rejections and does not ask again for what was declined', () => {
    const notebook = new ScribeNotebook();
    const steps = play(notebook, 9, (task) => ((task.kind === 'draft' && task.topic.slug === 'standup') || task.kind !== 'draft' ? 'rejected' : 'done'));
    expect(steps.slice(0, 4)).toEqual([
      'draft notes/2026-03-04-standup.md',
      'draft notes/2026-03-04-design-review.md',
      'action-items notes/2026-03-04-design-review.md',
      'draft notes/2026-03-04-retro.md',
    ]);
    expect(steps.filter((s) => s === 'tidy notes/2026-03-04-design-review.md')).toHaveLength(1); // declined: kept
    expect(notebook.draftPaths).toContain('notes/2026-03-04-design-review.md');
  });

  it('retries an interrupted task, and puts a requested topic first', () => {
    const notebook = new ScribeNotebook();
    const first = notebook.next(NOW);
    notebook.settle(first, 'interrupted');
    expect(notebook.next(NOW)).toEqual(first);
    notebook.request('Please take notes on the Q3 budget!', 'chat-1');
    const requested = notebook.next(NOW);
    expect(requested).toMatchObject({ kind: 'draft', trigger: 'chat-1', arguments: { path: 'notes/2026-03-04-q3-budget.md' } });
    notebook.settle(requested, 'done');
    expect(notebook.next(NOW)).toMatchObject({ kind: 'action-items', arguments: { path: 'notes/2026-03-04-q3-budget.md' } });
  });
});
