/**
 * The same command, run so that it ends when the process that spawned it dies, even by SIGKILL (which no exit
 * handler sees), whatever the program: `sh` forks a watcher that blocks reading the pipe on `watchFd` and then
 * execs the command, which so keeps the pid, signals and exit status its spawner sees. The spawner's end of that
 * pipe closes when the spawner dies (or lets go of the child after its exit); the watcher then sends the command
 * SIGTERM, and SIGKILL after `graceMs`. The watcher holds no other descriptor, so the command's output and IPC
 * channel close with the command. POSIX `sh` only (not Windows).
 *
 * @example
 * const run = endingWithParent('python3', ['agent.py'], 3, 3_000);
 * spawn(run.command, run.args, { stdio: ['ignore', 'pipe', 'pipe', 'pipe'] }); // fd 3: the pipe the watcher reads
 */
export function endingWithParent(command: string, args: readonly string[], watchFd: number, graceMs: number): { command: string; args: string[] } {
  const othersClosed = Array.from({ length: Math.max(0, watchFd - 3) }, (_, i) => `${i + 3}<&-`).join(' ');
  // `$$` in a subshell is the shell's pid, which `exec` hands to the command.
  const watcher = `(read _ <&${watchFd}; kill -TERM $$ 2>/dev/null && sleep ${Math.ceil(graceMs / 1000)} && kill -KILL $$ 2>/dev/null) ${othersClosed} </dev/null >/dev/null 2>&1 &`;
  return { command: '/bin/sh', args: ['-c', `${watcher} exec "$@" ${watchFd}<&-`, command, command, ...args] };
}
