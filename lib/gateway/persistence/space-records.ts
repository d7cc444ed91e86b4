import { existsSync, readFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { z } from 'zod';
import { CapabilityError, normalizeCapability, type CapabilityPattern } from '../../capabilities';
import { approvalEntrySchema, budgetLimitsSchema, formatIssues, type EnvelopeIssue } from '../../protocol';
import type { GatewayDatabase } from './gateway-database';
import { PersistenceError } from './persistence-error';

/** Entropy of minted tokens: 32 random bytes, base64url. */
const TOKEN_BYTES = 32;

function mintToken(): string {
  return randomBytes(TOKEN_BYTES).toString('base64url');
}

/** The SHA-256 of a token, hex: what is kept of an issued token (the token itself is shown once, never stored). */
export function tokenSha256(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** A stored capability is checked by the same normaliser as the config's (regexes validated, unknown keys refused). */
const capability = z.unknown().transform((value, ctx): CapabilityPattern => {
  try {
    return normalizeCapability(value);
  } catch (e) {
    if (!(e instanceof CapabilityError)) throw e;
    ctx.addIssue({ code: 'custom', message: e.message, path: e.path });
    return z.NEVER;
  }
});
const capabilities = z.array(capability);
const participantId = z.string().min(1);
const timestamp = z.string().min(1);

const grantRecordSchema = z.object({
  /** The id of the `capability/grant` envelope (or admin call) that made it. */
  id: z.string().min(1),
  recipient: participantId,
  /** What the grant still gives: a revocation by pattern removes the capabilities it covers from here. */
  capabilities,
  grantedBy: participantId,
  reason: z.string().optional(),
  ts: timestamp,
  /** ISO 8601: the grant stops at this instant (the gateway revokes it then, or when it loads one already past). */
  expiresAt: timestamp.optional(),
  revoked: z
    .object({
      by: participantId,
      ts: timestamp,
      /** The `capability/revoke` that ended it (the gateway's own, for an expiry or a cascade). */
      revocationId: z.string().min(1),
      expired: z.literal(true).optional(),
      /** Revoked because its granter lost what it gave: the grant (or pattern revocation) whose loss started the chain. */
      cascadeOf: z.string().min(1).optional(),
    })
    .optional(),
});

/** A revocation of capabilities the participant holds from the config (or its invite): the file is never edited. */
const baseRevocationSchema = z.object({
  id: z.string().min(1),
  recipient: participantId,
  capabilities,
  by: participantId,
  ts: timestamp,
  reason: z.string().optional(),
});

const invitedParticipantSchema = z.object({
  id: participantId,
  capabilities,
  invitedBy: participantId,
  ts: timestamp,
  reason: z.string().optional(),
});

/**
 * An additional token an operator issued for a participant (`POST /api/spaces/{space}/participants/{id}/tokens`, e.g.
 * for an MCP client): only its SHA-256 is kept, so it was shown once, to its issuer. A kick removes it.
 */
const issuedTokenSchema = z.object({
  /** Names it in the audit log (`TOKEN_ISSUED`) without revealing it. */
  id: z.string().min(1),
  participant: participantId,
  sha256: z.string().regex(/^[0-9a-f]{64}$/, 'a SHA-256 in hex'),
  issuedBy: participantId,
  ts: timestamp,
  label: z.string().optional(),
});

/** A pause the gateway enforces: until a resume, the deadline, or never (no deadline). */
const pauseRecordSchema = z.object({
  by: participantId,
  envelopeId: z.string().min(1),
  /** ms since epoch; absent = until resumed. */
  until: z.number().optional(),
  reason: z.string().optional(),
});

/** A participant's budget as set at run time, and what the budget in force has already triggered. */
const budgetRecordSchema = z.object({
  /** Set by an operator; replaces the config's limits (the config's price stays unless it gives one). */
  runtime: z.object({ limits: budgetLimitsSchema, by: participantId, at: timestamp }).optional(),
  /** Raised under `limits`: once per budget setting, a restart included; another setting starts afresh. */
  alerts: z.object({ limits: budgetLimitsSchema, warned_at: timestamp.optional(), exceeded_at: timestamp.optional() }).optional(),
});

/**
 * What the gateway knows of a proposal whose tool needs several approvals (space config `approvals`, see
 * ApprovalQuorum): kept here so that neither a restart nor a cluster takeover forgets it, whatever the retained
 * history still holds. Written only while such a policy is configured; bounded by the writer.
 */
const quorumRecordSchema = z.object({
  /** The proposal as the gateway tracks it: known again after a restart though it is no longer in the history. */
  proposal: z.object({
    id: z.string().min(1),
    proposer: participantId,
    tool: z.string().optional(),
    target: participantId.optional(),
    /** Its `callHash`. */
    call: z.string().optional(),
  }),
  /** The count fixed by the first approval (never lowered); absent while none came. */
  required: z.number().int().min(2).optional(),
  /** Distinct approvers by call hash, oldest first. */
  calls: z.record(z.string(), z.array(approvalEntrySchema)).default({}),
  /** The call that reached the quorum and ran: a later approval is refused. */
  completed: z.string().optional(),
});

export const spaceStateSchema = z.object({
  version: z.literal(1),
  grants: z.array(grantRecordSchema),
  revocations: z.array(baseRevocationSchema),
  invited: z.array(invitedParticipantSchema),
  /** Participants whose tokens were revoked by a kick; a later invite of the same id lets them back. */
  kicked: z.array(participantId),
  /** Pauses in force, by participant: a restart must not lift them any more than a reconnect does. */
  paused: z.record(participantId, pauseRecordSchema).default({}),
  budgets: z.record(participantId, budgetRecordSchema).default({}),
  issuedTokens: z.array(issuedTokenSchema).default([]),
  /** Proposals needing several approvals, oldest first (absent from documents written before they were kept). */
  quorums: z.array(quorumRecordSchema).default([]),
});

export type GrantRecord = z.infer<typeof grantRecordSchema>;
export type BaseRevocation = z.infer<typeof baseRevocationSchema>;
export type InvitedParticipant = z.infer<typeof invitedParticipantSchema>;
export type PauseRecord = z.infer<typeof pauseRecordSchema>;
export type BudgetRecord = z.infer<typeof budgetRecordSchema>;
export type IssuedToken = z.infer<typeof issuedTokenSchema>;
export type QuorumRecord = z.infer<typeof quorumRecordSchema>;
export type SpaceStateData = z.infer<typeof spaceStateSchema>;

/**
 * The shortest token the database may hold. It holds only tokens a gateway minted (TOKEN_BYTES random bytes, 43
 * characters), so a shorter one was put there by hand or by damage, and would be a guessable credential.
 */
export const MIN_STORED_TOKEN_LENGTH = 24;
const storedToken = z.string().min(MIN_STORED_TOKEN_LENGTH, `a minted token is at least ${MIN_STORED_TOKEN_LENGTH} characters`);

/** The gateway's minted tokens of a space, as the legacy `tokens.json` held them. */
const legacyTokensSchema = z.object({
  participants: z.record(participantId, storedToken).default({}),
  admin: storedToken.optional(),
});

/** The token's length is checked apart (`checkStoredToken`), so that the refusal names the holder, never the token. */
const tokenRowSchema = z.object({ role: z.enum(['participant', 'admin']), holder: z.string(), token: z.string() });

type StoredTokens = z.infer<typeof legacyTokensSchema>;

/** Everything a space's records hold, as one document: what a cluster carries from one owner of the space to the next. */
export interface RecordsDocument {
  state: SpaceStateData;
  tokens: StoredTokens;
}

const recordsDocumentSchema = z.object({ state: spaceStateSchema, tokens: legacyTokensSchema });

/** Parses and validates a records document kept outside the database (`where` names it in the error). */
export function parseRecordsDocument(where: string, text: string): RecordsDocument {
  return parseJsonDocument(where, 'space records', text, recordsDocumentSchema);
}

/** A copy of the records kept elsewhere too (cluster mode: Redis, written by the space's owner). */
export interface RecordsReplica {
  /** The records as the replica holds them, used instead of the database's (which starts empty). */
  initial?: RecordsDocument;
  /** Called inside every write's transaction with the whole new document; it must not throw. */
  replicate(document: RecordsDocument): void;
}

/** Token changes made inside one `update`, written in the same transaction as the state. */
export interface TokenChanges {
  /** A fresh token for the participant, replacing any previous one (invites, re-admission after a kick). */
  mint(participantId: string): string;
  /**
   * One more token for the participant, beside those it has: returned once, only its SHA-256 recorded in the state
   * (`issuedTokens`).
   */
  issue(participantId: string, issuedBy: string, label?: string): { token: string; record: IssuedToken };
  /** Removes every token of the participant: the minted one and those issued. */
  remove(participantId: string): void;
}

const emptyState = (): SpaceStateData => ({
  version: 1,
  grants: [],
  revocations: [],
  invited: [],
  kicked: [],
  paused: {},
  budgets: {},
  issuedTokens: [],
  quorums: [],
});

/**
 * What a space learns at run time — minted tokens, grants, revocations, invites, kicks, pauses, budgets, approvals
 * counted — in the gateway's database, so a restart changes nothing. Every change is one transaction (an invite's
 * token and its record together) written before the caller acknowledges it; the in-memory copy is replaced only once
 * the write succeeded. Loaded with validation: a row that does not validate stops the gateway instead of being
 * replaced.
 */
export class SpaceRecords {
  private _data: SpaceStateData;
  private tokens: StoredTokens;

  constructor(
    private readonly database: GatewayDatabase,
    private readonly spaceId: string,
    private readonly replica?: RecordsReplica,
  ) {
    const loaded = replica?.initial ?? this.load() ?? this.migrateLegacyFiles();
    this._data = loaded?.state ?? emptyState();
    this.tokens = loaded?.tokens ?? { participants: {} };
  }

  /** The current state; replaced (never mutated) by `update`. */
  get data(): Readonly<SpaceStateData> {
    return this._data;
  }

  /** The stored token of a participant, minted and saved on first use. */
  tokenFor(participantId: string): string {
    const existing = this.tokens.participants[participantId];
    if (existing) return existing;
    let minted = '';
    this.update((_, tokens) => {
      minted = tokens.mint(participantId);
    });
    return minted;
  }

  adminToken(): string {
    if (!this.tokens.admin) {
      const admin = mintToken();
      this.write(this._data, { ...this.tokens, admin });
    }
    return this.tokens.admin!;
  }

  /** Tokens this gateway minted for participants (for the process that runs the space's own agents). */
  mintedTokens(): Readonly<Record<string, string>> {
    return this.tokens.participants;
  }

  /**
   * Applies a change to a copy, writes state and tokens in one transaction, then makes the copy current.
   * `alsoWrite` runs inside that transaction (e.g. the change's audit record): if it throws, nothing is written.
   */
  update(change: (data: SpaceStateData, tokens: TokenChanges) => void, alsoWrite?: () => void): void {
    // The kept quorums (up to a thousand) are not copied: only `setQuorums` changes them, by replacing the array.
    const { quorums, ...rest } = this._data;
    const next: SpaceStateData = { ...structuredClone(rest), quorums };
    const participants = { ...this.tokens.participants };
    change(next, {
      mint: (id) => (participants[id] = mintToken()),
      issue: (id, issuedBy, label) => {
        const token = mintToken();
        const record: IssuedToken = { id: randomUUID(), participant: id, sha256: tokenSha256(token), issuedBy, ts: new Date().toISOString() };
        if (label !== undefined) record.label = label;
        next.issuedTokens.push(record);
        return { token, record };
      },
      remove: (id) => {
        delete participants[id];
        next.issuedTokens = next.issuedTokens.filter((t) => t.participant !== id);
      },
    });
    this.write(next, { ...this.tokens, participants }, alsoWrite);
  }

  /**
   * Replaces the kept quorums (ApprovalQuorum, on each change of what it counts), written like any update. The array
   * is taken as it is, never copied: the caller builds a new one each time and does not change it afterwards.
   */
  setQuorums(quorums: QuorumRecord[]): void {
    this.write({ ...this._data, quorums }, this.tokens);
  }

  private write(state: SpaceStateData, tokens: StoredTokens, alsoWrite?: () => void): void {
    const { db } = this.database;
    this.database.transaction(() => {
      alsoWrite?.();
      db.prepare('INSERT OR REPLACE INTO space_state (space, data) VALUES (?, ?)').run(this.spaceId, JSON.stringify(state));
      db.prepare('DELETE FROM tokens WHERE space = ?').run(this.spaceId);
      const insert = db.prepare('INSERT INTO tokens (space, role, holder, token) VALUES (?, ?, ?, ?)');
      for (const [holder, token] of Object.entries(tokens.participants)) insert.run(this.spaceId, 'participant', holder, token);
      if (tokens.admin) insert.run(this.spaceId, 'admin', '', tokens.admin);
      this.replica?.replicate({ state, tokens });
    });
    this._data = state;
    this.tokens = tokens;
  }

  /** The stored records, or undefined when the database has none for this space yet. */
  private load(): { state: SpaceStateData; tokens: StoredTokens } | undefined {
    const { db, file } = this.database;
    const stateRow = db.prepare('SELECT data FROM space_state WHERE space = ?').get(this.spaceId) as { data: string } | undefined;
    const tokenRows = db.prepare('SELECT role, holder, token FROM tokens WHERE space = ? ORDER BY role, holder').all(this.spaceId);
    if (!stateRow && tokenRows.length === 0) return undefined;
    const tokens: StoredTokens = { participants: {} };
    tokenRows.forEach((row, i) => {
      const parsed = tokenRowSchema.safeParse(row);
      if (!parsed.success) throw invalid(file, `space "${this.spaceId}" tokens row ${i + 1}`, parsed.error.issues);
      checkStoredToken(file, this.spaceId, parsed.data);
      if (parsed.data.role === 'admin') tokens.admin = parsed.data.token;
      else tokens.participants[parsed.data.holder] = parsed.data.token;
    });
    const state = stateRow ? parseJsonDocument(file, `space "${this.spaceId}" state`, stateRow.data, spaceStateSchema) : emptyState();
    return { state, tokens };
  }

  /**
   * Imports `<dataDir>/<space>/tokens.json` and `state.json` from before the database, in one transaction, then
   * renames them `*.migrated` (kept, never deleted). A file that does not parse or validate stops the gateway:
   * replacing it would silently lock out every invitee and the admin.
   */
  private migrateLegacyFiles(): { state: SpaceStateData; tokens: StoredTokens } | undefined {
    if (!this.database.dataDir) return undefined;
    const dir = join(this.database.dataDir, this.spaceId);
    const tokensFile = join(dir, 'tokens.json');
    const stateFile = join(dir, 'state.json');
    const hasTokens = existsSync(tokensFile);
    const hasState = existsSync(stateFile);
    if (!hasTokens && !hasState) return undefined;
    const tokens = hasTokens ? parseJsonDocument(tokensFile, 'minted tokens', readFileSync(tokensFile, 'utf8'), legacyTokensSchema) : { participants: {} };
    const state = hasState ? parseJsonDocument(stateFile, 'space state', readFileSync(stateFile, 'utf8'), spaceStateSchema) : emptyState();
    this.write(state, tokens);
    for (const migrated of [hasTokens && tokensFile, hasState && stateFile]) if (migrated) renameSync(migrated, `${migrated}.migrated`);
    return { state, tokens };
  }
}

/** Refuses a stored token shorter than MIN_STORED_TOKEN_LENGTH. The message names the holder, never the token. */
export function checkStoredToken(file: string, space: string, row: { role: string; holder: string; token: string }): void {
  if (row.token.length >= MIN_STORED_TOKEN_LENGTH) return;
  const holder = row.role === 'admin' ? 'the admin token' : `participant "${row.holder}"'s token`;
  throw new PersistenceError(
    file,
    `space "${space}": ${holder} is ${row.token.length} characters, shorter than any the gateway mints (${MIN_STORED_TOKEN_LENGTH}); restore the database from a backup, or delete that tokens row so a new token is minted`,
  );
}

function parseJsonDocument<T>(file: string, what: string, text: string, schema: z.ZodType<T>): T {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new PersistenceError(file, `${what} is not valid JSON (${(e as Error).message}); fix or restore it, the gateway will not replace it`);
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw invalid(file, what, parsed.error.issues);
  return parsed.data;
}

function invalid(file: string, what: string, issues: readonly z.core.$ZodIssue[]): PersistenceError {
  const list: EnvelopeIssue[] = issues.map((i) => ({ path: i.path.map((p) => (typeof p === 'symbol' ? String(p) : p)), message: i.message }));
  return new PersistenceError(file, `${what} does not validate: ${formatIssues(list)}`);
}
