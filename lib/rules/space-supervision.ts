import type { AuditSink } from '../gateway/audit-sink';
import { GATEWAY_ID } from '../gateway/gateway-options';
import type { RuleRecords } from './rule-records';
import { ruleAuditRecord } from './rules-api';
import type { Space } from '../gateway/space';
import type { SpaceConfig } from '../gateway/space-config';
import type { TransportFactory } from '../sdk/transport';
import { RuleSupervisor } from './rule-supervisor';

export interface SpaceSupervisionOptions {
  /** The gateway's WebSocket URL, where the supervisor joins. */
  gatewayUrl: string;
  /** How it joins: in the gateway's process, without a socket (`SpaceHostContext.join`); a WebSocket when absent. */
  transport?: TransportFactory;
  config: SpaceConfig;
  /** The space as the gateway serves it: who its supervisor is, and the token it joins with. */
  space: Space;
  records: RuleRecords;
  audit: AuditSink;
  /** Who is present now: rules bound to the session of anyone else (`for_session_of`) end at start. */
  present: (participant: string) => boolean;
  /** Whether a participant's tool was redefined since it was pinned: no rule approves it. */
  toolChanged?: (participant: string, tool: string) => boolean;
  log: (line: string) => void;
}

/** A space's rule supervisor: `reload` after the rules change, `stop` to leave. */
export interface SpaceSupervision {
  /** The supervisor's participant id. */
  readonly participant: string;
  /** Whether it has joined the space (or is joining): it does once the space has a rule or timeouts to apply. */
  readonly running: boolean;
  /**
   * The rules changed: compiled again and applied to what is pending. The first rule of a space whose supervisor
   * is not running yet starts it; resolves once it has joined and applies the rules (or could not join).
   */
  reload(): Promise<void>;
  stop(): void;
}

/** The token the space's supervisor joins with: the config's first, else the one the gateway minted (the implicit supervisor always has one). */
function supervisorToken(config: SpaceConfig, space: Space, id: string): string | undefined {
  if (space.state.kicked.includes(id)) return undefined;
  return config.participants.find((p) => p.id === id)?.tokens?.[0] ?? space.services.records.mintedTokens()[id];
}

/**
 * Applies a space's approval rules and timeouts (config `automation`) as its supervisor participant, and ends the
 * rules bound to a participant's session when that participant leaves. Every space has one (the gateway adds the
 * participant when the config names none) unless its config turns it off (`automation.supervisor: false`): then
 * this answers undefined, and the rules API refuses rules there. The one way a single process and a cluster owner
 * both run it.
 *
 * It joins only when there is something to apply, so a space without rules pays nothing for it: at once when the
 * space has rules or timeouts, else with its first rule (`reload`). Joining then, it catches up on what the gateway
 * retained, as the control room does, so the new rule decides proposals already waiting ("approve for 1 hour" on a
 * card); joining at start, it does not (nothing from before a restart is decided unseen).
 */
export function superviseSpace(options: SpaceSupervisionOptions): SpaceSupervision | undefined {
  const { config, records, space } = options;
  const id = space.supervisor;
  if (id === undefined) return undefined;
  let supervisor: RuleSupervisor | undefined;
  let joined: Promise<void> | undefined;
  let stopped = false;
  const endSessions = (participant?: string) => {
    const ended = records.endSessions(participant, GATEWAY_ID, ruleAuditRecord(options.audit, config.id, 'RULE_DELETED', GATEWAY_ID, 'session ended'));
    if (ended > 0) supervisor?.reload();
  };
  const { present } = options;
  for (const participant of new Set(records.list().flatMap((r) => r.for_session_of ?? []))) if (!present(participant)) endSessions(participant);

  const start = (catchUp: 'missed' | 'retained'): Promise<void> => {
    if (joined) return joined;
    const token = supervisorToken(config, space, id);
    if (token === undefined) {
      options.log('cannot join: it has no token (kicked?)');
      return (joined = Promise.resolve());
    }
    const started = new RuleSupervisor({
      gateway: options.gatewayUrl,
      ...(options.transport && { transport: options.transport }),
      space: config.id,
      token,
      catchUp,
      rules: () => records.list(),
      timeouts: config.timeouts,
      onRuleEvent: (rule, event, proposal) => records.recordEvent(rule, event, proposal.id),
      onParticipantLeft: (participant) => endSessions(participant),
      toolChanged: options.toolChanged,
      log: options.log,
    });
    supervisor = started;
    joined = started.connect().catch((error: Error) => options.log(`could not join: ${error.message}`));
    return joined;
  };
  if (config.timeouts !== undefined || records.list().length > 0) void start('missed');

  return {
    participant: id,
    get running() {
      return supervisor !== undefined;
    },
    reload: async () => {
      if (stopped) return;
      if (!supervisor) {
        // Its first welcome applies the rules to what is pending then.
        if (records.list().length > 0) await start('retained');
        return;
      }
      supervisor.reload();
      await joined;
    },
    stop: () => {
      stopped = true;
      supervisor?.disconnect();
    },
  };
}
