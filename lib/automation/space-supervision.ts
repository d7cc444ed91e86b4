import type { AuditSink } from '../gateway/audit-sink';
import { GATEWAY_ID } from '../gateway/gateway-options';
import type { RuleRecords } from '../gateway/persistence/rule-records';
import { ruleAuditRecord } from '../gateway/rules-api';
import type { SpaceConfig } from '../gateway/space-config';
import { RuleSupervisor } from './rule-supervisor';

export interface SpaceSupervisionOptions {
  /** The WebSocket URL the supervisor joins through. */
  gatewayUrl: string;
  config: SpaceConfig;
  /** The supervisor participant's token. */
  token: string;
  records: RuleRecords;
  audit: AuditSink;
  /**
   * Who is present now: rules bound to the session of anyone else (`for_session_of`) end at start. Without it,
   * every such rule ends (a server that starts has no session left).
   */
  present?: (participant: string) => boolean;
  log: (line: string) => void;
}

/** A space's rule supervisor, running: `reload` after the rules change, `stop` to leave. */
export interface SpaceSupervision {
  reload(): void;
  stop(): void;
}

/**
 * Applies a space's approval rules and timeouts (config `automation`) as its supervisor participant, and ends the
 * rules bound to a participant's session when that participant leaves.
 */
export function superviseSpace(options: SpaceSupervisionOptions): SpaceSupervision {
  const { config, records } = options;
  let supervisor: RuleSupervisor | undefined;
  const endSessions = (participant?: string) => {
    const ended = records.endSessions(participant, GATEWAY_ID, ruleAuditRecord(options.audit, config.id, 'RULE_DELETED', GATEWAY_ID, 'session ended'));
    if (ended > 0) supervisor?.reload();
  };
  const { present } = options;
  if (!present) endSessions();
  else for (const participant of new Set(records.list().flatMap((r) => r.for_session_of ?? []))) if (!present(participant)) endSessions(participant);
  supervisor = new RuleSupervisor({
    gateway: options.gatewayUrl,
    space: config.id,
    token: options.token,
    rules: () => records.list(),
    timeouts: config.timeouts,
    onRuleEvent: (rule, event, proposal) => records.recordEvent(rule, event, proposal.id),
    onParticipantLeft: (participant) => endSessions(participant),
    log: options.log,
  });
  void supervisor.connect().catch((error: Error) => options.log(`could not join: ${error.message}`));
  return {
    reload: () => supervisor?.reload(),
    stop: () => supervisor?.disconnect(),
  };
}
