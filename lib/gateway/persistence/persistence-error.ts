/**
 * What the gateway has persisted cannot be read or trusted (an unreadable database, a row or a legacy JSON file that
 * does not validate). The server stops with this message, which names the file and the problem: carrying on would
 * mean re-minting credentials or forgetting revocations without a word.
 */
export class PersistenceError extends Error {
  constructor(
    readonly file: string,
    problem: string,
    options?: { cause?: unknown },
  ) {
    super(`${file}: ${problem}`, options);
    this.name = 'PersistenceError';
  }
}
