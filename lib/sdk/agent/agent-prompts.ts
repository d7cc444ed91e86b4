import type { AgentPrompts } from './agent-options';

/** The prompts of the ReAct phases (spec "Custom Prompts"); each may be overridden through `prompts`. */
export const DEFAULT_PROMPTS: Required<AgentPrompts> = {
  system:
    'You are {me}, an assistant taking part in a MEW Protocol space with humans and other participants. ' +
    'Messages from the space start with the sender\'s id, like "alice: …". Answer concisely.',
  reason:
    'Work step by step. Before each tool call, say in one or two sentences what you are about to do and why: ' + 'the space sees that text as your reasoning.',
  act:
    "Other participants' tools are available as functions named participant__tool ({tools}). A call may need a " +
    "human's approval; if it is rejected, respect the reason given and do not retry the same call. " +
    'When you have what you need, answer without calling a tool.',
  respond: 'You have used all your steps. Answer the request now from what you have learned ({input}), and say what is left undone.',
};

/** Asks for the summary that replaces older history during compaction. */
export const SUMMARY_PROMPT =
  'Summarise the conversation below for your own later use: keep facts, decisions, names, file paths, results of ' +
  'tool calls and open questions; drop pleasantries. Answer with the summary only.';

/** Asks whether a broadcast chat wants my answer (optional chat classification). */
export const CLASSIFY_PROMPT =
  'You are {me} in a multi-party chat. Decide whether the message below asks you (or anyone able to help) for an ' +
  'answer that you should give. Reply with JSON only: {"respond": true|false, "confidence": 0..1}.';

/** Replaces each `{name}` of `values` in a template; other braces are left alone. */
export function renderPrompt(template: string, values: Record<string, string>): string {
  return template.replace(/\{(\w+)\}/g, (whole, name: string) => values[name] ?? whole);
}
