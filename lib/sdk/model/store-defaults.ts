// Every default of the space model in one place: a participant's model and the control room's store (a view of the
// browser participant's model) resolve the same ones, so the SDK and the screen never disagree (e.g. on expiry).

/** Envelopes kept in the log ring before the oldest are evicted (and counted). */
export const LOG_CAP = 10_000;

/** Chat messages kept for display; unacknowledged chats addressed to me are kept separately (see below). */
export const CHAT_CAP = 1000;

/** Chats addressed to someone that the acknowledgement queue tracks before the oldest are dropped. */
export const ADDRESSED_CHAT_CAP = 1000;

/** Envelope ids remembered for idempotent re-ingest; larger than the log so a catch-up never replays evicted ones. */
export const SEEN_IDS_CAP = 20_000;

/** Samples kept per participant in the telemetry series. */
export const TELEMETRY_POINTS_CAP = 500;

/** A participant whose latest `participant/status` is older than this (at tick time) is shown as stale. */
export const STALE_AFTER_MS = 60_000;

/** Context gauge (tokens / max_tokens): below this ratio is green. */
export const GAUGE_AMBER_RATIO = 0.7;

/** Context gauge: below this ratio (and at or above amber) is amber; at or above is red. */
export const GAUGE_RED_RATIO = 0.9;

/**
 * Our own deadline for a pending proposal whose proposer supplied none: none by default, because a deadline a card
 * shows must be the one the proposer acts on (its `timeout_ms`, which `mcpRequest` always sends). A space that wants
 * one sets it (e.g. 5 min, spec §10.2's example); proposals past their deadline turn `expired` at tick time, for the
 * SDK (`proposals.pending()`, `fulfil`) and the cards alike.
 */
export const PROPOSAL_TIMEOUT_MS: number | null = null;

/** Proposals kept in the store; the oldest settled ones go first, pending ones are never dropped. */
export const PROPOSAL_CAP = 2000;

/** Reasoning threads kept; the oldest finished ones go first, live ones are never dropped. */
export const REASONING_THREADS_CAP = 200;

/** Thoughts kept per reasoning thread (oldest dropped and counted). */
export const REASONING_THOUGHTS_CAP = 500;

/** Characters of plain-text stream output kept per reasoning thread (the tail is kept). */
export const STREAM_TEXT_CAP = 64 * 1024;

/** How many recent thoughts are compared when de-duplicating a thought mirrored into a stream (SDK behaviour). */
export const THOUGHT_MIRROR_WINDOW = 20;

/** Closed streams kept for display. */
export const CLOSED_STREAMS_CAP = 100;

/** Toast-bound errors kept until `takeErrors()`. */
export const ERROR_QUEUE_CAP = 100;

/** Security events (refusals of others, told to operators) kept in the live feed. */
export const SECURITY_FEED_CAP = 200;

/** Replies kept on a participant's last control (e.g. interim `status` updates before `compact-done`). */
export const CONTROL_REPLIES_CAP = 5;

/** Argument-keyed results a memoised selector keeps per input generation. */
export const SELECTOR_CACHE_SIZE = 16;

/** Suggested period for `startClock`: countdowns, expiry, pause timeouts and staleness move at this pace. */
export const TICK_INTERVAL_MS = 1000;

/**
 * Options of the space model (`ParticipantModel`, `createSpaceState`, `createSpaceStore`, `MEWParticipant`'s `spaceModel`);
 * every field defaults to the constant of the same meaning.
 */
export interface SpaceStoreOptions {
  /** My participant id, if known before the welcome (the welcome addressed to me sets it otherwise). */
  me?: string;
  /**
   * Also derive what only a screen shows: the envelope log and the ids seen (a catch-up fed twice changes nothing;
   * the log tells evicted from never seen), telemetry series, reasoning threads, grants, the error and security
   * feeds, chat history and stream frame counts. Without it a model keeps what the SDK acts on (participants, tools,
   * proposals, streams, chats awaiting me), derived the same way. @default true (`MEWParticipant`: false)
   */
  screen?: boolean;
  /** @default LOG_CAP */
  logCap?: number;
  /** @default CHAT_CAP */
  chatCap?: number;
  /** @default ADDRESSED_CHAT_CAP */
  addressedChatCap?: number;
  /** @default SEEN_IDS_CAP (never below 4 × logCap) */
  seenIdsCap?: number;
  /** @default TELEMETRY_POINTS_CAP */
  telemetryCap?: number;
  /** @default STALE_AFTER_MS */
  staleAfterMs?: number;
  /** Deadline for proposals that carry none; `null` = only proposer-supplied deadlines expire. @default PROPOSAL_TIMEOUT_MS */
  proposalTimeoutMs?: number | null;
  /** @default PROPOSAL_CAP */
  proposalCap?: number;
  /** @default REASONING_THREADS_CAP */
  reasoningThreadsCap?: number;
  /** @default REASONING_THOUGHTS_CAP */
  reasoningThoughtsCap?: number;
  /** @default ERROR_QUEUE_CAP */
  errorQueueCap?: number;
  /** @default SECURITY_FEED_CAP */
  securityFeedCap?: number;
  /** Clock used by the store's actions (not by the pure reducers, which take `now`). @default Date.now */
  now?: () => number;
}

/** The options with every default filled in; part of the state so the pure reducers know their caps. */
export interface StoreConfig {
  screen: boolean;
  logCap: number;
  chatCap: number;
  addressedChatCap: number;
  seenIdsCap: number;
  telemetryCap: number;
  staleAfterMs: number;
  proposalTimeoutMs: number | null;
  proposalCap: number;
  reasoningThreadsCap: number;
  reasoningThoughtsCap: number;
  errorQueueCap: number;
  securityFeedCap: number;
}

/**
 * Fills in defaults; caps below 1 are raised to 1 so a ring can always hold the newest entry. Without `screen` the
 * chat history holds one message and no ids are remembered (a participant's client emits each id once).
 */
export function resolveStoreConfig(options: SpaceStoreOptions = {}): StoreConfig {
  const cap = (value: number | undefined, fallback: number) => Math.max(1, Math.floor(value ?? fallback));
  const screen = options.screen ?? true;
  const logCap = cap(options.logCap, LOG_CAP);
  return {
    screen,
    logCap,
    chatCap: screen ? cap(options.chatCap, CHAT_CAP) : 1,
    addressedChatCap: cap(options.addressedChatCap, ADDRESSED_CHAT_CAP),
    seenIdsCap: screen ? Math.max(cap(options.seenIdsCap, SEEN_IDS_CAP), logCap * 4) : 0,
    telemetryCap: cap(options.telemetryCap, TELEMETRY_POINTS_CAP),
    staleAfterMs: options.staleAfterMs ?? STALE_AFTER_MS,
    proposalTimeoutMs: options.proposalTimeoutMs === undefined ? PROPOSAL_TIMEOUT_MS : options.proposalTimeoutMs,
    proposalCap: cap(options.proposalCap, PROPOSAL_CAP),
    reasoningThreadsCap: cap(options.reasoningThreadsCap, REASONING_THREADS_CAP),
    reasoningThoughtsCap: cap(options.reasoningThoughtsCap, REASONING_THOUGHTS_CAP),
    errorQueueCap: cap(options.errorQueueCap, ERROR_QUEUE_CAP),
    securityFeedCap: cap(options.securityFeedCap, SECURITY_FEED_CAP),
  };
}
