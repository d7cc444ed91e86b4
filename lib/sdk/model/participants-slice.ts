import { isParticipantControlKind, type WireCapability, type ParticipantControlKind } from '../../protocol';
import { coversSafely } from '../safe-capabilities';
import { appendCapped, writable } from './collection-utils';
import type { Welcome } from './connection-slice';
import type { ReduceContext } from './reduce-context';
import { CONTROL_REPLIES_CAP } from './store-defaults';
import { correlationIds, num, payloadOf, str, type JsonObject, type StoreEnvelope } from './store-envelope';

/** A pause in force (spec §3.9.1), until a resume, or by time at tick once `until` has passed. */
export interface PauseState {
  /** The `participant/pause` envelope. */
  controlId: string;
  by: string;
  since: number;
  /** `ts + timeout_seconds` when the pause carried a timeout. */
  until?: number;
  reason?: string;
}

/** A shutdown in force (spec §3.9.10), until the participant rejoins (presence `join`). */
export interface ShutdownState {
  controlId: string;
  by: string;
  at: number;
}

/** An envelope the target sent back correlated to a control. */
export interface ControlReply {
  id: string;
  kind: string;
  at: number;
  payload: JsonObject;
}

/** The last control directive sent to a participant and what came back. */
export interface ControlState {
  /** The control envelope's id (replies carry it in `correlation_id`). */
  id: string;
  kind: ParticipantControlKind;
  from: string;
  at: number;
  payload: JsonObject;
  /** Latest replies from the target, oldest first (e.g. interim `participant/status` then `compact-done`). */
  replies: readonly ControlReply[];
  /** True once a reply that closes this control arrived (see `CONTROL_COMPLETION_KINDS`). */
  completed: boolean;
  completedAt?: number;
}

/** One participant of the space, as the envelopes seen describe it. Left participants are kept (`online: false`). */
export interface ParticipantState {
  id: string;
  online: boolean;
  /** As last reported by the welcome or a presence `join` (grants are in the grants slice). */
  capabilities: readonly WireCapability[];
  /**
   * What it may send as far as the envelopes seen tell: that report (the gateway's word, so it resets the rest), minus
   * what revocations by pattern routed since cover, plus grants routed since and not revoked. The SDK checks who may
   * control it against this, with the gateway's own matcher.
   */
  effective: EffectiveCapabilities;
  /** Connection time: the presence `join` (unknown for those already present when I joined). */
  joinedAt?: number;
  /** Last time they were known present: join, welcome listing, or leave. */
  lastSeen?: number;
  leftAt?: number;
  invited?: { id: string; by: string; at: number; reason?: string };
  kicked?: { id: string; by: string; at: number; reason?: string };
  paused?: PauseState;
  shutdown?: ShutdownState;
  lastControl?: ControlState;
}

/** A participant's capabilities since its last report: the reported ones still in force, and grants seen since. */
export interface EffectiveCapabilities {
  base: readonly WireCapability[];
  grants: readonly { id: string; capabilities: readonly WireCapability[] }[];
  /** `base` and the grants' capabilities together. */
  all: readonly WireCapability[];
}

const NO_CAPABILITIES: EffectiveCapabilities = { base: [], grants: [], all: [] };

function reported(capabilities: readonly WireCapability[]): EffectiveCapabilities {
  return { base: capabilities, grants: [], all: capabilities };
}

function withGrants(base: readonly WireCapability[], grants: EffectiveCapabilities['grants']): EffectiveCapabilities {
  return { base, grants, all: [...base, ...grants.flatMap((g) => g.capabilities)] };
}

/** Participants by id (each record immutable; the map is the store's, read-only to everyone else). */
export interface ParticipantsState {
  byId: ReadonlyMap<string, ParticipantState>;
}

/** A fresh participants slice. */
export function initialParticipants(): ParticipantsState {
  return { byId: new Map() };
}

/**
 * Which reply kinds close a control (spec §3.9): compact → `compact-done` (interim statuses don't), request-status
 * → `status`, forget/clear/restart/shutdown → `status` or `chat/acknowledge` (the kinds a shut-down participant may
 * still send). Controls not listed close on any correlated reply.
 */
export const CONTROL_COMPLETION_KINDS: Readonly<Partial<Record<ParticipantControlKind, readonly string[]>>> = {
  'participant/compact': ['participant/compact-done'],
  'participant/request-status': ['participant/status'],
  'participant/forget': ['participant/status', 'chat/acknowledge'],
  'participant/clear': ['participant/status', 'chat/acknowledge'],
  'participant/restart': ['participant/status', 'chat/acknowledge'],
  'participant/shutdown': ['participant/status', 'chat/acknowledge'],
};

// Applies `change` to participant `id` (created offline, or online when `online`); true when it changed.
function update(byId: Map<string, ParticipantState>, id: string, change: (p: ParticipantState) => ParticipantState, online = false): boolean {
  const current = byId.get(id);
  const next = change(current ?? { id, online, capabilities: [], effective: NO_CAPABILITIES });
  if (next === current) return false;
  byId.set(id, next);
  return true;
}

/** Applies presence, welcome, invites, kicks, controls and control replies (a status report only introduces its sender). */
export function reduceParticipants(state: ParticipantsState, welcome: Welcome | undefined, envelope: StoreEnvelope, ctx: ReduceContext): ParticipantsState {
  const byId = writable(state.byId);
  const changedByKind = applyKind(byId, welcome, envelope, ctx);
  const changedByReply = applyControlReply(byId, envelope, ctx);
  return changedByKind || changedByReply ? { byId } : state;
}

function applyKind(byId: Map<string, ParticipantState>, welcome: Welcome | undefined, envelope: StoreEnvelope, ctx: ReduceContext): boolean {
  const { at } = ctx;
  switch (envelope.kind) {
    case 'system/welcome':
      return welcome ? applyWelcome(byId, welcome, at) : false;
    case 'system/presence': {
      const { event, participant } = envelope.payload;
      const id = participant.id;
      // History replayed after a reconnect arrives after the fresh welcome: presence older than what we
      // already know must not roll a participant back (stale capabilities, or offline when it is online).
      if (event === 'join') {
        return update(byId, id, (p) =>
          p.lastSeen !== undefined && at < p.lastSeen
            ? p
            : {
                ...p,
                online: true,
                capabilities: participant.capabilities ?? [],
                effective: reported(participant.capabilities ?? []),
                joinedAt: at,
                lastSeen: at,
                leftAt: undefined,
                kicked: undefined,
                shutdown: undefined, // a shutdown lasts until the participant rejoins
              },
        );
      }
      if (event === 'leave')
        return update(byId, id, (p) => (p.lastSeen !== undefined && at < p.lastSeen ? p : { ...p, online: false, leftAt: at, lastSeen: at }));
      return false;
    }
    case 'space/invite':
    case 'space/kick': {
      const { participant_id: id, reason } = envelope.payload;
      const record = { id: envelope.id, by: envelope.from, at, reason };
      return update(byId, id, (p) => (envelope.kind === 'space/invite' ? { ...p, invited: record } : { ...p, kicked: record }));
    }
    case 'capability/grant': {
      const { recipient, capabilities } = envelope.payload;
      return update(byId, recipient, (p) => ({ ...p, effective: withGrants(p.effective.base, [...p.effective.grants, { id: envelope.id, capabilities }]) }));
    }
    case 'capability/revoke': {
      const { recipient, grant_id: grantId, capabilities: patterns } = envelope.payload;
      // The gateway's rule: by id, that grant; by pattern, every capability the patterns cover, reported or granted.
      const kept = (list: readonly WireCapability[]) => (patterns ? list.filter((c) => !coversSafely(patterns, c)) : list);
      return update(byId, recipient, (p) => {
        const grants = p.effective.grants
          .filter((g) => g.id !== grantId)
          .map((g) => ({ ...g, capabilities: kept(g.capabilities) }))
          .filter((g) => g.capabilities.length > 0);
        return { ...p, effective: withGrants(kept(p.effective.base), grants) };
      });
    }
    case 'participant/status':
      // Someone reporting status is connected. The report itself lives in the telemetry slice only: kept here too,
      // every report (several a second per agent) would re-render each participant's card.
      return byId.has(envelope.from) ? false : update(byId, envelope.from, (p) => p, true);
    default:
      return isParticipantControlKind(envelope.kind) ? applyControl(byId, envelope, envelope.kind, ctx) : false;
  }
}

function applyWelcome(byId: Map<string, ParticipantState>, welcome: Welcome, at: number): boolean {
  const listed = new Map<string, WireCapability[]>();
  listed.set(welcome.you.id, welcome.you.capabilities);
  for (const p of welcome.participants) listed.set(p.id, p.capabilities ?? []);
  for (const [id, capabilities] of listed) {
    // Listed now but offline before: they (re)joined while I was away, so a shutdown is over and the join time unknown.
    const effective = reported(capabilities);
    update(byId, id, (p) =>
      p.online
        ? { ...p, capabilities, effective, lastSeen: at }
        : { ...p, online: true, capabilities, effective, lastSeen: at, joinedAt: undefined, leftAt: undefined, shutdown: undefined },
    );
  }
  // The welcome is a snapshot: whoever is not in it left while I was disconnected.
  for (const p of byId.values()) {
    if (!listed.has(p.id) && p.online) byId.set(p.id, { ...p, online: false, leftAt: at });
  }
  return true;
}

function applyControl(byId: Map<string, ParticipantState>, envelope: StoreEnvelope, kind: ParticipantControlKind, ctx: ReduceContext): boolean {
  const targets = envelope.to ?? [];
  if (targets.length === 0) return false; // controls name their targets (spec §3.9); a broadcast one targets nobody
  const payload = payloadOf(envelope);
  const control: ControlState = { id: envelope.id, kind, from: envelope.from, at: ctx.at, payload, replies: [], completed: false };
  for (const target of targets) {
    update(byId, target, (p) => {
      const updated: ParticipantState = { ...p, lastControl: control };
      if (kind === 'participant/pause') {
        const seconds = num(payload.timeout_seconds);
        updated.paused = {
          controlId: envelope.id,
          by: envelope.from,
          since: ctx.at,
          until: seconds !== undefined && seconds > 0 ? ctx.at + seconds * 1000 : undefined,
          reason: str(payload.reason),
        };
      } else if (kind === 'participant/resume') {
        updated.paused = undefined;
      } else if (kind === 'participant/shutdown') {
        updated.shutdown = { controlId: envelope.id, by: envelope.from, at: ctx.at };
      }
      return updated;
    });
  }
  return true;
}

function applyControlReply(byId: Map<string, ParticipantState>, envelope: StoreEnvelope, ctx: ReduceContext): boolean {
  const p = byId.get(envelope.from);
  const control = p?.lastControl;
  if (!p || !control || !correlationIds(envelope).includes(control.id)) return false;
  const reply: ControlReply = { id: envelope.id, kind: envelope.kind, at: ctx.at, payload: payloadOf(envelope) };
  const closing = CONTROL_COMPLETION_KINDS[control.kind];
  const completes = closing === undefined || closing.includes(envelope.kind);
  byId.set(p.id, {
    ...p,
    lastControl: {
      ...control,
      replies: appendCapped(control.replies, reply, CONTROL_REPLIES_CAP),
      completed: control.completed || completes,
      completedAt: control.completedAt ?? (completes ? ctx.at : undefined),
    },
  });
  return true;
}

/** Lifts pauses whose `until` has passed (spec §3.9.1 `timeout_seconds`); same state when none did. */
export function tickParticipants(state: ParticipantsState, now: number): ParticipantsState {
  let changed = false;
  for (const p of state.byId.values()) {
    if (p.paused?.until !== undefined && p.paused.until <= now) {
      writable(state.byId).set(p.id, { ...p, paused: undefined });
      changed = true;
    }
  }
  return changed ? { byId: state.byId } : state;
}
