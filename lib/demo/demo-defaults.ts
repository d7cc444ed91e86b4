/**
 * Every default, timing and size of the demo agents and their supervisor, in one place. Options and the
 * `MEW_DEMO_PACE_MS` environment variable override the pace; tests pass small values everywhere.
 */

// ── Pace ────────────────────────────────────────────────────────────────────────────────────────────────

/** Gap between two scribe steps: lively, but slow enough for a human to read each proposal. */
export const DEFAULT_PACE_MS = 7_000;

/** The auditor looks at the notes every this many paces (≈ 14 s at the default pace). */
export const AUDIT_INTERVAL_PACES = 2;

/** Gap between two streamed thoughts, as a share of the pace, so reasoning visibly unfolds. */
export const THOUGHT_GAP_PACE_RATIO = 0.15;

// ── Participants ────────────────────────────────────────────────────────────────────────────────────────

/** The participant id of the file tool provider in the demo space (the scribe's and auditor's target). */
export const FILES_PARTICIPANT_ID = 'files';

// ── Working context ─────────────────────────────────────────────────────────────────────────────────────

/** The scribe's context window. */
export const SCRIBE_MAX_TOKENS = 8_000;

/** The auditor keeps only its latest observations. */
export const AUDITOR_MAX_TOKENS = 4_000;
export const AUDITOR_CONTEXT_MAX_ENTRIES = 12;

/** The agents compact on their own once their window is full (a scripted summary costs nothing, so it can wait). */
export const DEMO_COMPACTION_RATIO = 1;

/** Compaction keeps this many newest entries verbatim and summarises the rest into one. */
export const COMPACT_KEEP_NEWEST = 2;

/** Upper bound of a compaction summary (~90 tokens), so compacting a full context frees room. */
export const COMPACT_SUMMARY_MAX_CHARS = 360;

// ── Scribe ──────────────────────────────────────────────────────────────────────────────────────────────

/** How long a proposal waits for a human decision before the SDK withdraws it. */
export const SCRIBE_PROPOSAL_TIMEOUT_MS = 120_000;

/** Drafts kept before the scribe proposes archiving the oldest one. */
export const SCRIBE_KEEP_DRAFTS = 2;

// ── Auditor ─────────────────────────────────────────────────────────────────────────────────────────────

/** Timeout of the auditor's direct tool calls (the files agent answers in milliseconds). */
export const AUDITOR_REQUEST_TIMEOUT_MS = 10_000;

/** The directory the scribe writes to and the auditor watches, relative to the sandbox. */
export const NOTES_DIRECTORY = 'notes';

/** Where, inside the notes directory, the scribe moves the drafts it tidies away. */
export const ARCHIVE_DIRECTORY = 'archive';
