import { InMemoryTaskStore } from '@modelcontextprotocol/sdk/experimental/tasks';
import type { CallToolResult, Task } from '@modelcontextprotocol/sdk/types.js';

/**
 * The tasks of one MCP session (the spec's tasks, the SDK's experimental support): a client that asks for a task
 * when it calls a tool that waits for approval gets the task at once and polls it (`tasks/get`, `tasks/result`), so
 * no request has to stay open through a person's decision. The SDK answers the `tasks/*` requests from this store;
 * cancelling a task (`tasks/cancel`) aborts its call, which withdraws its proposal.
 */
export class ApprovalTasks extends InMemoryTaskStore {
  private readonly running = new Map<string, AbortController>();

  /** Runs the call of task `taskId`; `store` keeps its result once it ends (unless the task was cancelled meanwhile). */
  run(taskId: string, call: (signal: AbortSignal) => Promise<CallToolResult>, store: (result: CallToolResult) => Promise<void>): void {
    const controller = new AbortController();
    this.running.set(taskId, controller);
    void call(controller.signal)
      .catch((error: Error): CallToolResult => ({ isError: true, content: [{ type: 'text', text: error.message }] }))
      .then((result) => (controller.signal.aborted ? undefined : store(result)))
      .catch(() => undefined) // the task ended otherwise (cancelled, expired): its result has nowhere to go
      .finally(() => this.running.delete(taskId));
  }

  override async updateTaskStatus(taskId: string, status: Task['status'], statusMessage?: string, sessionId?: string): Promise<void> {
    await super.updateTaskStatus(taskId, status, statusMessage, sessionId);
    if (status === 'cancelled') this.running.get(taskId)?.abort(new Error('the client cancelled the task'));
  }

  /** The session ended: every call under way is aborted, and the tasks are forgotten. */
  close(): void {
    for (const controller of this.running.values()) controller.abort(new Error('the MCP session ended'));
    this.cleanup();
  }
}
