'use client';

import { useEffect, useId, useRef } from 'react';
import { useSpace } from '@/components/session/space-session';
import { openQuestionsForMe } from '@/lib/store';
import { questionAnchor, QuestionCard } from './question-card';

/** Cards rendered; the heading still counts the rest. */
const SHOWN = 20;

/** The `#question=<id>` of a notification's link (a webhook's), if the page's fragment has one. */
function linkedQuestion(): string | undefined {
  return new URLSearchParams(window.location.hash.slice(1)).get('question') ?? undefined;
}

/**
 * Questions waiting for my answer (asked of everyone or of me, by an MCP client's `space__ask_human` or any
 * participant), oldest first, each with its reply box. A question answered by anyone, or withdrawn by its asker,
 * leaves. A `#question=<id>` link brings its card into view with the reply box focused.
 */
export function OpenQuestions() {
  const questions = useSpace(openQuestionsForMe);
  const headingId = useId();
  const count = questions.length;

  // Each link is followed once: the questions that arrive later must not take the focus back to it.
  const revealed = useRef<string>(undefined);
  // biome-ignore lint/correctness/useExhaustiveDependencies: tried again as questions arrive (the linked one may come with the catch-up)
  useEffect(() => {
    const reveal = () => {
      const id = linkedQuestion();
      const card = id === undefined || id === revealed.current ? null : document.getElementById(questionAnchor(id));
      if (!card) return;
      revealed.current = id;
      card.scrollIntoView({ block: 'center' });
      card.querySelector<HTMLElement>('textarea')?.focus({ preventScroll: true });
    };
    reveal();
    window.addEventListener('hashchange', reveal);
    return () => window.removeEventListener('hashchange', reveal);
  }, [questions]);

  if (count === 0) return null;
  return (
    <section aria-labelledby={headingId} className="flex flex-col gap-2">
      <h3 id={headingId} className="text-xs font-semibold text-violet-200">
        Questions for you ({count})
      </h3>
      <ul className="flex max-h-96 flex-col gap-1.5 overflow-y-auto">
        {questions.slice(0, SHOWN).map((q) => (
          <li key={q.message.id}>
            <QuestionCard question={q} />
          </li>
        ))}
      </ul>
      {count > SHOWN && <p className="text-xs text-slate-400">and {count - SHOWN} more</p>}
    </section>
  );
}
