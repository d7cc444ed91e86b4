import type { StoreConfig } from './store-defaults';

/** What every slice reducer knows besides its slice and the envelope. */
export interface ReduceContext {
  /** Time of ingestion (epoch ms). */
  now: number;
  /** When the envelope happened: its `ts`, else `now`. */
  at: number;
  /** My participant id, once known (option or welcome). */
  me: string | undefined;
  /** Ingestion sequence number of this envelope (1, 2, …): a stable tie-break when timestamps are equal. */
  seq: number;
  config: StoreConfig;
}
