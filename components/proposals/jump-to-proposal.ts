/** Scrolls to and focuses a proposal's card (the queue marks each with `data-proposal-id`). */
export function jumpToProposal(id: string): void {
  const card = document.querySelector<HTMLElement>(`[data-proposal-id="${CSS.escape(id)}"]`);
  card?.scrollIntoView({ block: 'center', behavior: 'smooth' });
  card?.focus();
}
