// The history store's writer, on its own thread, so the gateway's event loop never waits for the disk. Plain
// JavaScript so it loads the same way under tsx, vitest and node. Messages:
//   {type: 'write', chunks: [{space, firstSeq, lastSeq, entries}], limits: {space: n}}  (entries: JSON lines)
//   {type: 'close', clean: [[space, epoch]]}
// Answers {type: 'error', message} and {type: 'closed', lost}.
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';

/** After a failed write, the next attempt waits this long (a failing disk is not retried in a tight loop). */
const RETRY_INTERVAL_MS = 1000;

const db = new Database(workerData.file, { timeout: workerData.busyTimeoutMs });
db.pragma('journal_mode = WAL');
db.pragma('synchronous = NORMAL');
const insert = db.prepare('INSERT OR REPLACE INTO history_chunks (space, first_seq, last_seq, entries) VALUES (?, ?, ?, ?)');
// A chunk goes once all of it is older than the retained window.
const prune = db.prepare('DELETE FROM history_chunks WHERE space = ? AND last_seq <= ?');
const markClean = db.prepare('UPDATE history_epochs SET clean = 1 WHERE space = ? AND epoch = ?');
const write = db.transaction((chunks, limits) => {
  for (const c of chunks) {
    insert.run(c.space, c.firstSeq, c.lastSeq, c.entries);
    prune.run(c.space, c.lastSeq - (limits[c.space] ?? c.lastSeq));
  }
});

/** Messages not yet written (kept, in order, while writes fail). */
const pending = [];
let limits = {};
let retry;

function drain() {
  retry = undefined;
  try {
    while (pending.length > 0) {
      write(pending[0], limits);
      pending.shift();
    }
    return true;
  } catch (error) {
    parentPort.postMessage({ type: 'error', message: error.message });
    retry = setTimeout(drain, RETRY_INTERVAL_MS);
    return false;
  }
}

parentPort.on('message', (message) => {
  if (message.type === 'write') {
    pending.push(message.chunks);
    limits = message.limits;
    if (!retry) drain();
    return;
  }
  clearTimeout(retry);
  const written = drain();
  // Only a run that wrote everything may let the next one continue its numbering.
  if (written) db.transaction(() => message.clean.forEach(([space, epoch]) => markClean.run(space, epoch)))();
  db.close();
  parentPort.postMessage({ type: 'closed', lost: !written });
});
