import { MewSdkError } from '../sdk/sdk-errors';
import { DemoAgent, type DemoAgentOptions } from './demo-agent';
import {
  AUDIT_INTERVAL_PACES,
  AUDITOR_CONTEXT_MAX_ENTRIES,
  AUDITOR_MAX_TOKENS,
  AUDITOR_REQUEST_TIMEOUT_MS,
  DEFAULT_PACE_MS,
  FILES_PARTICIPANT_ID,
  NOTES_DIRECTORY,
} from './demo-defaults';
import { resultText, toolError } from './tool-result';

/** The tools of the filesystem server the auditor calls (its capabilities allow these and nothing else). */
type AuditorTool = 'list_directory' | 'get_file_info' | 'read_text_file';

/** What the auditor says about a note. */
export interface NoteFindings {
  words: number;
  actionItems: number;
  openActionItems: number;
}

/** A checklist line: `- [ ] todo` or `* [x] done`. */
const ACTION_ITEM = /^\s*[-*]\s+\[([ xX])\]/;

/** Counts the words and the action items (open and done) of a Markdown note. */
export function auditNote(text: string): NoteFindings {
  const items = text.split('\n').flatMap((line) => ACTION_ITEM.exec(line)?.[1] ?? []);
  return {
    words: text.split(/\s+/).filter(Boolean).length,
    actionItems: items.length,
    openActionItems: items.filter((mark) => mark === ' ').length,
  };
}

/** A tool call `files` answered with an error, or with something that is not what the auditor expects. */
class AuditFailure extends Error {}

/**
 * The `auditor` agent: trusted to read, not to write. Every few paces it lists `notes/` and reads the newest
 * note with direct `mcp/request`s (its capabilities allow `tools/call` of the filesystem server's `list_directory`,
 * `get_file_info` and `read_text_file` only, so no proposal and no human in the loop), and comments in chat on what changed: word count and
 * whether the note has action items. The control room thus shows trusted and untrusted work side by side.
 *
 * @example
 * const auditor = await startAuditorAgent({ gatewayUrl, space: 'demo', token, dataDir: 'data' });
 */
export async function startAuditorAgent(options: DemoAgentOptions): Promise<DemoAgent> {
  const intervalMs = (options.paceMs ?? DEFAULT_PACE_MS) * AUDIT_INTERVAL_PACES;
  const agent = new DemoAgent({
    ...options,
    maxTokens: AUDITOR_MAX_TOKENS,
    maxContextEntries: AUDITOR_CONTEXT_MAX_ENTRIES,
    baseline: `I am the auditor. I read the newest note in ${NOTES_DIRECTORY}/ and report on it. I can read files, never change them.`,
    answerChat: () =>
      `I'm the auditor: every ${Math.round(intervalMs / 1000)} s I read the newest note in ${NOTES_DIRECTORY}/ and report its word count and action items. I can read, never write.`,
  });
  /** The version of the newest note last commented on: only a change is worth a chat. */
  let lastSeen: string | undefined;

  async function call(tool: AuditorTool, path: string): Promise<string> {
    const params = { name: tool, arguments: { path } };
    const result = await agent.mcpRequest(FILES_PARTICIPANT_ID, { method: 'tools/call', params }, AUDITOR_REQUEST_TIMEOUT_MS);
    const refused = toolError(result);
    if (refused) throw new AuditFailure(`${tool} ${path}: ${refused}`);
    const text = resultText(result);
    if (text === undefined) throw new AuditFailure(`${tool} ${path}: no text in the result`);
    return text;
  }

  /** The newest note: `list_directory` names the files (`[FILE] name`), `get_file_info` says when each changed. */
  async function newestNote(): Promise<{ name: string; modified: number } | undefined> {
    const listing = await call('list_directory', NOTES_DIRECTORY);
    const names = listing.split('\n').flatMap((line) => /^\[FILE\] (.+\.md)$/.exec(line)?.[1] ?? []);
    const notes = await Promise.all(
      names.map(async (name) => ({
        name,
        modified: Date.parse(/^modified: (.+)$/m.exec(await call('get_file_info', `${NOTES_DIRECTORY}/${name}`))?.[1] ?? '') || 0,
      })),
    );
    return notes.sort((a, b) => b.modified - a.modified || b.name.localeCompare(a.name))[0];
  }

  async function audit(): Promise<void> {
    const started = Date.now();
    const newest = await newestNote();
    if (!newest || `${newest.name}@${newest.modified}` === lastSeen) return;
    const path = `${NOTES_DIRECTORY}/${newest.name}`;
    const content = await call('read_text_file', path);
    lastSeen = `${newest.name}@${newest.modified}`;
    agent.telemetry.record({ latencyMs: Date.now() - started });
    const { words, actionItems, openActionItems } = auditNote(content);
    const items = actionItems ? `${actionItems} action item${actionItems === 1 ? '' : 's'} (${openActionItems} open)` : 'no action items yet';
    const text = `Audit of ${path}: ${words} words, ${items}.`;
    if (await agent.act(() => agent.chat.send(text))) agent.remember('observation', text);
  }

  await agent.connect();
  agent.run(async () => {
    while ((await agent.sleep(intervalMs)) && (await agent.waitUntilActive())) {
      if (!agent.isPresent(FILES_PARTICIPANT_ID)) {
        agent.reportStatus('waiting_for_files');
        continue;
      }
      try {
        await audit();
      } catch (error) {
        // A refusal, a timeout or a pause landing mid-audit: note it and try again next round.
        if (!(error instanceof AuditFailure || error instanceof MewSdkError)) throw error;
        agent.remember('observation', `audit failed: ${error.message}`);
      }
      agent.reportStatus();
    }
  });
  return agent;
}
