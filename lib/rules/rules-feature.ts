import type { RunningFeature, SpaceFeature } from '../host/space-feature';
import type { RunningToolPins } from '../tool-pins/tool-pins-feature';
import { RULE_TABLES, RuleRecords } from './rule-records';
import { createRulesRoute } from './rules-api';
import { superviseSpace, type SpaceSupervision } from './space-supervision';

/** The rules feature as it runs for one space: its records and supervisor (tests read them). */
export interface RunningRules {
  readonly records: RuleRecords;
  /** Undefined when the space's config turns the supervisor off (`automation.supervisor: false`). */
  readonly supervision?: SpaceSupervision;
  stop(): void;
}

/**
 * A space's approval rules: their tables, the rules API (`/api/spaces/{space}/rules`) and the rule supervisor that
 * applies them (every space has one unless its config turns it off), told at once when the API changes a rule.
 */
export function rulesFeature(): SpaceFeature {
  return {
    name: 'rules',
    tables: RULE_TABLES,
    start(context) {
      const { config, space } = context;
      const records = new RuleRecords(context.database, config.id, context.storage.replicate);
      const supervision = superviseSpace({
        gatewayUrl: context.gatewayUrl,
        transport: context.join,
        config,
        space,
        records,
        audit: context.audit,
        present: (participant) => space.participants.get(participant)?.online === true,
        toolChanged: (participant, tool) => context.feature<RunningToolPins>('tool-pins')?.changed(participant, tool) === true,
        log: (line) => context.log(`[${config.id}/${space.supervisor}] ${line}`),
      });
      if (supervision) context.log(`  ${config.id}/${supervision.participant}: applies the space's approval rules`);
      return {
        records,
        supervision,
        routes: [createRulesRoute(context.gateway, records, context.audit, () => supervision?.reload())],
        stop: () => supervision?.stop(),
      } satisfies RunningRules & RunningFeature;
    },
  };
}
