import type { ChangeListener, FeatureTable } from './change-record';

/**
 * Where a host keeps what its features write beyond the host's database: nothing more in a single process (the
 * database is a file), Redis through the owner's fenced writes in a cluster. Everything a feature stores goes
 * through this one interface as change records, applied by one replica applier for every table.
 */
export interface HostStorage {
  /** Fills the database with the rows of these tables that earlier owners wrote (a cluster owner, at takeover). */
  load(tables: readonly FeatureTable[]): Promise<void>;
  /** Told of every row a feature writes or deletes, inside the write's transaction (in a cluster: written with the turn). */
  readonly replicate: ChangeListener;
  /** A secret the whole deployment shares (signing keys), minted by whoever needs it first, never replaced. */
  secret(name: string, mint: () => string): Promise<string>;
  /** Whether this host still speaks for the space (a cluster owner whose lease still holds): one that does not sends nothing. */
  speaksForSpace(): Promise<boolean>;
  /** Nothing more is replicated (an owner that stopped: an attempt still under way is its own). */
  close(): void;
}
