import { GATEWAY_ID } from './kinds';

// The audit log as its API serves it (`GET /api/spaces/{space}/audit`, `…/audit/export`, `…/audit/verify`).

/**
 * The one list of audit event types; values are one-line descriptions (DESIGN.md, "Audit").
 *
 * Names follow MGP 0.5.2 §6.4 where one fits; the others are MEW's own, in the same SCREAMING_SNAKE style so a
 * dashboard filter reads uniformly. (MGP suggests reverse-domain names for custom types; whoever forwards these
 * as `notifications/mgp.audit` should namespace the ones with `mgp: false`.)
 *
 * | type                   | MGP §6.4 | MEW trigger                                        | actor              | subject          | details (suggested)                         |
 * |------------------------|----------|----------------------------------------------------|--------------------|------------------|---------------------------------------------|
 * | `PARTICIPANT_JOINED`   | –        | a session authenticates and joins                  | the participant    | –                | `{ capabilities? }`                         |
 * | `PARTICIPANT_LEFT`     | –        | its last connection closes                         | the participant    | –                | `{ reason?, code? }`                        |
 * | `ACCESS_GRANTED`       | yes      | `capability/grant` accepted                        | granter            | recipient        | `{ capabilities, reason? }` (grant id = envelope_id) |
 * | `ACCESS_REVOKED`       | yes      | `capability/revoke` accepted; or a grant whose granter lost what it gave (cascade) | revoker / gateway | recipient | `{ grant_id?, capabilities?, removed, reason?, cascade_of? }` |
 * | `GRANT_EXPIRED`        | –        | a grant's `expires_at` came: the gateway revoked it | gateway           | recipient        | `{ grant_id, capabilities, granted_by, expires_at }` |
 * | `TOOL_BLOCKED`         | yes      | a refused `mcp/request` whose method is `tools/call` | the sender       | –                | `{ error, attempted_kind, method, tool? }`  |
 * | `ACCESS_DENIED`        | –  (¹)   | any other security refusal (capability_violation, reserved_kind, identity_mismatch, grant_exceeds_own_capabilities, paused/shutdown, not_proposer) | the sender | – | `{ error, attempted_kind }` |
 * | `AUTH_FAILED`          | –        | a presented token authenticates nobody (upgrade, join frame, HTTP) | –      | –                | `{ via, address, suppressed? }`             |
 * | `PARTICIPANT_INVITED`  | –        | `space/invite` accepted                            | inviter            | invitee          | `{ capabilities, reason? }` (never the token) |
 * | `PARTICIPANT_KICKED`   | –        | `space/kick` accepted                              | kicker             | target           | `{ reason? }`                               |
 * | `TOKEN_ISSUED`         | –        | an operator issues a participant one more token (`POST …/participants/{id}/tokens`) | operator / `admin` | participant | `{ token_id, label? }` (never the token) |
 * | `MCP_SESSION_ENDED`    | –        | an operator ends an MCP client's session (`DELETE …/mcp/sessions/{id_prefix}`) | operator / `admin` | participant | `{ id_prefix, client?, client_version?, withdrawn }` (never the session id) |
 * | `PARTICIPANT_PAUSED`   | –        | `participant/pause` accepted                       | sender             | target           | `{ timeout_seconds?, reason? }`             |
 * | `PARTICIPANT_RESUMED`  | –        | `participant/resume`, or a pause timing out        | sender / gateway   | target           | `{ reason? }` (`timeout` when it lapsed)    |
 * | `PARTICIPANT_SHUTDOWN` | –        | `participant/shutdown` accepted                    | sender             | target           | `{ reason? }`                               |
 * | `STREAM_OPENED`        | –        | `stream/request` answered with `stream/open`       | stream owner       | target?          | `{ stream_id, direction?, target? }`        |
 * | `STREAM_CLOSED`        | –        | `stream/close`, or owner gone after the grace time | closer / gateway   | owner?           | `{ stream_id, reason? }`                    |
 * | `PROPOSAL_CREATED`     | –  (²)   | an `mcp/proposal` routed                           | proposer           | –                | `{ trace_id, method, tool?, to }`           |
 * | `PROPOSAL_APPROVED`    | –  (²)   | one approval of a proposal whose tool needs several (`approvals` config) | approver | proposer | `{ trace_id, proposal_id, tool?, request_id, approvals, required, complete, counted }` |
 * | `PROPOSAL_FULFILLED`   | –  (²)   | an `mcp/request` whose `correlation_id` names an `mcp/proposal` | fulfiller | proposer    | `{ trace_id, proposal_id, tool?, approvals? }` (every approver, when it took several) |
 * | `PROPOSAL_REJECTED`    | –  (²)   | `mcp/reject` of a proposal                         | rejecter           | proposer         | `{ trace_id, proposal_id, tool?, reason? }` |
 * | `PROPOSAL_WITHDRAWN`   | –  (²)   | `mcp/withdraw` of a proposal (its timeout, or its proposer changed its mind) | proposer | –  | `{ trace_id, proposal_id, tool?, reason? }` |
 * | `PROPOSAL_EXECUTED`    | –  (²)   | the `mcp/response` to a fulfilling request: the approved call's outcome | executor | proposer | `{ trace_id, proposal_id, tool?, approved_by, outcome, error?, tool_error? }` |
 * | `CAPABILITIES_CHANGED` | –        | the admin API replaces a participant's capabilities | `admin`           | participant      | `{ before, after }`                         |
 * | `RULE_CREATED`         | –        | an approval rule is created (rules API)            | operator / `admin` | –                | `{ rule_id, version, name, decision, mode }` |
 * | `RULE_UPDATED`         | –        | a rule is edited: its next version                 | operator / `admin` | –                | `{ rule_id, version, name, decision, mode }` |
 * | `RULE_DELETED`         | –        | a rule is deleted                                  | operator / `admin` | –                | `{ rule_id, version, name }`                |
 * | `PROCESS_STARTED`      | –        | an operator starts a launched participant's process | operator / `admin` | participant      | `{}`                                        |
 * | `PROCESS_STOPPED`      | –        | an operator stops one                              | operator / `admin` | participant      | `{}`                                        |
 * | `PROCESS_RESTARTED`    | –        | an operator restarts one                           | operator / `admin` | participant      | `{}`                                        |
 * | `BUDGET_SET`           | –        | an operator sets a participant's budget (budgets API) | operator / `admin` | participant    | `{ budget_tokens?, budget_usd?, price_per_1k_tokens_usd?, previous? }` |
 * | `BUDGET_CLEARED`       | –        | an operator clears it back to the config's         | operator / `admin` | participant      | `{ previous }`                              |
 * | `BUDGET_WARNING`       | –        | a status crosses 80 % of the budget (once per setting) | gateway        | participant      | `{ budget_tokens?, budget_usd?, spent_tokens, spent_usd?, ratio }` |
 * | `BUDGET_EXCEEDED`      | –        | a status reaches 100 %: the gateway pauses it (envelope_id = the pause) | gateway | participant | `{ budget_tokens?, budget_usd?, spent_tokens, spent_usd?, ratio }` |
 * | `WEBHOOK_ADDED`        | –        | an operator adds a webhook (webhooks API)          | operator / `admin` | –                | `{ webhook_id, url (masked), format }`      |
 * | `WEBHOOK_REMOVED`      | –        | an operator removes one                            | operator / `admin` | –                | `{ webhook_id, url (masked), format }`      |
 * | `TOOL_DEFINITION_CHANGED` | –     | a `tools/list` answer defines a pinned tool differently | gateway      | participant      | `{ tool, pinned_hash, hash }`               |
 * | `TOOL_DEFINITION_ACCEPTED` | –    | an operator pins a changed tool's current definition | operator / `admin` | participant   | `{ tool, previous_hash, hash }`             |
 * | `SECRET_REVEALED`      | –        | an operator reveals a masked secret of an envelope in the control room (`POST …/audit/reveal`) | operator / `admin` | the envelope's sender | `{ kind?, in_history }` (envelope_id = the envelope; never the secret) |
 * | `AUDIT_EVENTS_DROPPED` | –        | the audit queue overflowed (written by the log itself) | gateway        | –                | `{ count, reason }`                         |
 *
 * (¹) `ACCESS_DENIED` is MGP's error name for the same situation (§14.3, code 1001). `TOOL_BLOCKED` is kept for
 *     tool calls because §6.4 defines it for exactly that; `VALIDATION_FAILED` is not used: malformed envelopes
 *     (invalid_json, invalid_envelope, message_too_large) and rate_limited are hygiene, not security decisions,
 *     and auditing them would let one noisy client flood the log.
 * (²) MGP's PERMISSION_GRANTED / PERMISSION_DENIED describe its initialize-time permission gate (§3), which MEW
 *     does not have; a proposal decision is per call, so it keeps a MEW name. A proposal's events share its id
 *     as `details.trace_id` (MGP §6.5), so its trail reads as one chain.
 *
 * Secrets never belong in `details`: the log redacts keys such as `token` anyway (`AUDIT_REDACTED_KEYS`, lib/gateway/audit).
 */
export const AUDIT_EVENT_TYPES = {
  PARTICIPANT_JOINED: { mgp: false, description: 'A participant authenticated and joined the space.' },
  PARTICIPANT_LEFT: { mgp: false, description: 'A participant left the space (its last connection closed).' },
  ACCESS_GRANTED: { mgp: true, description: 'Capabilities were granted to a participant (`capability/grant`).' },
  ACCESS_REVOKED: { mgp: true, description: 'Granted capabilities were revoked (`capability/revoke`, or in cascade: the granter lost them).' },
  GRANT_EXPIRED: { mgp: false, description: 'A grant reached its `expires_at` and the gateway revoked it.' },
  TOOL_BLOCKED: { mgp: true, description: 'A `tools/call` request was refused by access control.' },
  ACCESS_DENIED: { mgp: false, description: 'An envelope was refused by access control (capability, identity, reserved kind, paused).' },
  AUTH_FAILED: { mgp: false, description: 'A token that authenticates nobody was presented (at most a few a second per address).' },
  PARTICIPANT_INVITED: { mgp: false, description: 'A participant was invited (`space/invite`).' },
  PARTICIPANT_KICKED: { mgp: false, description: 'A participant was removed and its tokens revoked (`space/kick`).' },
  TOKEN_ISSUED: { mgp: false, description: 'An operator issued a participant one more token (e.g. for an MCP client).' },
  MCP_SESSION_ENDED: { mgp: false, description: 'An operator ended an MCP client\u2019s session (its calls waiting for approval were withdrawn).' },
  PARTICIPANT_PAUSED: { mgp: false, description: 'A participant was paused (`participant/pause`).' },
  PARTICIPANT_RESUMED: { mgp: false, description: 'A paused participant was resumed.' },
  PARTICIPANT_SHUTDOWN: { mgp: false, description: 'A participant was shut down (`participant/shutdown`).' },
  STREAM_OPENED: { mgp: false, description: 'The gateway opened a stream (`stream/open`).' },
  STREAM_CLOSED: { mgp: false, description: 'A stream was closed.' },
  PROPOSAL_CREATED: { mgp: false, description: 'A participant proposed a call (`mcp/proposal`).' },
  PROPOSAL_APPROVED: {
    mgp: false,
    description: 'A proposal whose tool needs several approvals got one (held until enough distinct participants approved).',
  },
  PROPOSAL_FULFILLED: { mgp: false, description: 'A proposal was approved: an `mcp/request` fulfilled it.' },
  PROPOSAL_REJECTED: { mgp: false, description: 'A proposal was rejected (`mcp/reject`).' },
  PROPOSAL_WITHDRAWN: { mgp: false, description: 'A proposal was withdrawn by its proposer (`mcp/withdraw`).' },
  PROPOSAL_EXECUTED: { mgp: false, description: 'An approved call was answered: its outcome, success or error.' },
  CAPABILITIES_CHANGED: { mgp: false, description: 'The admin API changed a participant\u2019s capabilities.' },
  RULE_CREATED: { mgp: false, description: 'An operator created an approval rule.' },
  RULE_UPDATED: { mgp: false, description: 'An operator changed an approval rule (a new version).' },
  RULE_DELETED: { mgp: false, description: 'An operator deleted an approval rule.' },
  PROCESS_STARTED: { mgp: false, description: 'An operator started a launched participant\u2019s process.' },
  PROCESS_STOPPED: { mgp: false, description: 'An operator stopped a launched participant\u2019s process.' },
  PROCESS_RESTARTED: { mgp: false, description: 'An operator restarted a launched participant\u2019s process.' },
  BUDGET_SET: { mgp: false, description: 'An operator set a participant\u2019s budget.' },
  BUDGET_CLEARED: { mgp: false, description: 'An operator cleared a participant\u2019s run-time budget (back to the config\u2019s).' },
  BUDGET_WARNING: { mgp: false, description: 'A participant has spent 80 % of its budget.' },
  BUDGET_EXCEEDED: { mgp: false, description: 'A participant spent its whole budget: the gateway paused it and asked it to compact.' },
  WEBHOOK_ADDED: { mgp: false, description: 'An operator added a webhook that receives the space\u2019s proposals.' },
  WEBHOOK_REMOVED: { mgp: false, description: 'An operator removed a webhook.' },
  TOOL_DEFINITION_CHANGED: {
    mgp: false,
    description:
      'A tool answered with another definition than the one pinned (description, schema, annotations or risk): no rule approves it until an operator accepts.',
  },
  TOOL_DEFINITION_ACCEPTED: { mgp: false, description: 'An operator accepted a changed tool definition: it is pinned now.' },
  SECRET_REVEALED: { mgp: false, description: 'An operator revealed the masked secrets of an envelope in the control room.' },
  AUDIT_EVENTS_DROPPED: { mgp: false, description: 'Audit events were lost because the audit queue overflowed.' },
} as const satisfies Record<string, { mgp: boolean; description: string }>;

export type AuditEventType = keyof typeof AUDIT_EVENT_TYPES;

/** Every event type, in table order (for filters and pickers). */
export const AUDIT_EVENT_TYPE_NAMES = Object.keys(AUDIT_EVENT_TYPES) as AuditEventType[];

export function isAuditEventType(value: unknown): value is AuditEventType {
  return typeof value === 'string' && Object.hasOwn(AUDIT_EVENT_TYPES, value);
}

/** `actor` of events the gateway itself caused (grace-period stream closes, pause timeouts, overflow). */
export const AUDIT_ACTOR_GATEWAY = GATEWAY_ID;
/** `actor` of events caused through the admin HTTP API. */
export const AUDIT_ACTOR_ADMIN = 'admin';

/**
 * One stored audit event, as `GET /api/spaces/{space}/audit` (`{events}`) and its JSONL export serve it. Rows are
 * append-only and hash-chained per space.
 */
export interface AuditEvent {
  /** Assigned by the database (autoincrement, global across spaces): the order of events. */
  id: number;
  /** ISO 8601 UTC, gateway time when the event was recorded. */
  ts: string;
  space: string;
  /** Usually an {@link AuditEventType}; a type from a newer gateway is kept as is. */
  type: AuditEventType | (string & {});
  /** Who did it: a participant id, {@link AUDIT_ACTOR_GATEWAY} or {@link AUDIT_ACTOR_ADMIN}. */
  actor?: string;
  /** Who it was done to. */
  subject?: string;
  /** The envelope that caused the event, when there was one (for a grant, also the grant id). */
  envelope_id?: string;
  details: Record<string, unknown>;
  /** `hash` of the previous event of the same space, or `AUDIT_GENESIS_HASH` (64 zeros) for its first. */
  prev_hash: string;
  /** sha256 (hex) of `prev_hash` + the canonical JSON of this event without `hash`. */
  hash: string;
}

/** A page of `GET /api/spaces/{space}/audit`. */
export interface AuditPage {
  events: AuditEvent[];
}

/** `POST /api/spaces/{space}/audit/reveal` (operators): the envelope whose masked secrets the caller reveals. */
export interface SecretRevealRequest {
  envelope_id: string;
}

/** Its answer, once the reveal is in the audit log (`SECRET_REVEALED`): only then does the control room show it. */
export interface SecretRevealRecorded {
  envelope_id: string;
  /** The envelope's sender, when the space's retained history still holds it. */
  subject?: string;
}

/** `GET /api/spaces/{space}/audit/verify`: the space's hash chain recomputed. */
export interface AuditVerification {
  ok: boolean;
  /** Events that fit the chain (up to the first that does not). */
  checked: number;
  /** The id of the first event that does not fit, when `ok` is false. */
  broken_at?: number;
  /** The newest event's id and hash, worth keeping elsewhere to notice a truncated log. */
  head?: { id: number; hash: string };
}
