import type { IncomingMessage, ServerResponse } from 'node:http';
import { validateRule } from '../rules/rule-engine';
import type { ApprovalRule } from '../rules/approval-rule';
import type { AuditSink } from '../gateway/audit-sink';
import type { Gateway } from '../gateway/gateway';
import type { Space } from '../gateway/space';
import { GatewayError } from '../gateway/gateway-error';
import { requireOperator } from '../gateway/http-caller';
import { decodePathSegment, readJsonBody, sendJson } from '../gateway/http-util';
import type { RuleRecords } from './rule-records';

const RULES_PATH = /^\/api\/spaces\/([^/]+)\/rules(?:\/([^/]+))?$/;

/**
 * How long a change waits for the space's supervisor to apply it before answering (the first rule of a space starts
 * its supervisor, which then joins): once answered, the next proposal is decided by the new rules.
 */
const APPLIED_WAIT_MS = 5_000;

/**
 * The approval rules of a space (`GET`/`POST /api/spaces/{space}/rules`, `PUT`/`DELETE …/rules/{id}`), for operators
 * only: the admin token, or a participant whose capabilities cover an unrestricted `capability/grant` (who may hand
 * out any capability may automate handing out decisions). A rule is checked whole before it is saved (its patterns
 * compiled, its own examples run: `400 invalid_rule` with `issues`); every change is a new version, audited in the
 * same transaction. Where nothing would apply a rule (the config turns the rule supervisor off, or it was kicked),
 * creating or changing one is refused (`409 no_rule_supervisor`) rather than kept to decide nothing; listing and
 * deleting still work. `changed` tells the supervisor; the answer waits (a few seconds at most) until it applies the
 * change.
 */
export function createRulesRoute(gateway: Gateway, records: RuleRecords, audit: AuditSink, changed: () => void | Promise<unknown> = () => undefined) {
  return async function handleRules(req: IncomingMessage, res: ServerResponse, url: URL): Promise<boolean> {
    const match = RULES_PATH.exec(url.pathname);
    if (!match) return false;
    const space = gateway.spaces.get(decodePathSegment(match[1]));
    if (!space) throw new GatewayError('unknown_space', `no space "${match[1]}"`);
    const by = requireOperator(gateway, space, req, 'the approval rules API').id;
    const id = match[2] === undefined ? undefined : decodePathSegment(match[2]);
    const record = (type: RuleChange) => ruleAuditRecord(audit, space.id, type, by);

    const unknown = () => new GatewayError('unknown_rule', `no rule "${id}" in space "${space.id}"`);
    const applied = () => appliedWithin(changed(), APPLIED_WAIT_MS);
    if (id === undefined && req.method === 'GET') {
      sendJson(res, 200, { rules: records.listWithStats(), supervisor: space.supervisor ?? null });
    } else if (id === undefined && req.method === 'POST') {
      requireSupervisor(space);
      const rule = records.create(await validBody(req, space.limits.maxFrameBytes), by, record('RULE_CREATED'));
      await applied();
      sendJson(res, 201, { rule });
    } else if (id === undefined) {
      methodNotAllowed(res, 'GET, POST');
    } else if (req.method === 'GET') {
      sendJson(res, 200, { rule: records.get(id) ?? throwing(unknown()) });
    } else if (req.method === 'PUT') {
      requireSupervisor(space);
      const rule = records.update(id, await validBody(req, space.limits.maxFrameBytes), by, record('RULE_UPDATED')) ?? throwing(unknown());
      await applied();
      sendJson(res, 200, { rule });
    } else if (req.method === 'DELETE') {
      const rule = records.remove(id, by, record('RULE_DELETED')) ?? throwing(unknown());
      await applied();
      sendJson(res, 200, { deleted: id, version: rule.version });
    } else {
      methodNotAllowed(res, 'GET, PUT, DELETE');
    }
    return true;
  };
}

type RuleChange = 'RULE_CREATED' | 'RULE_UPDATED' | 'RULE_DELETED';

/** The audit record of a rule's change, written in the change's own transaction (`RuleRecords`' `alsoWrite`). */
export function ruleAuditRecord(audit: AuditSink, space: string, type: RuleChange, by: string, reason?: string) {
  return (rule: ApprovalRule) =>
    audit.recordNow({
      space,
      type,
      actor: by,
      details: { rule_id: rule.id, version: rule.version, name: rule.name, decision: rule.decision, mode: rule.mode, ...(reason && { reason }) },
    });
}

/** Refuses to keep a rule nothing would apply: the space runs no rule supervisor, or its supervisor was kicked. */
function requireSupervisor(space: Space): void {
  const { supervisor } = space;
  if (supervisor === undefined) {
    throw new GatewayError(
      'no_rule_supervisor',
      `space "${space.id}" runs no rule supervisor (its config sets automation.supervisor: false), so no rule would ever decide: remove that setting to have rules applied`,
    );
  }
  if (space.state.kicked.includes(supervisor)) {
    throw new GatewayError('no_rule_supervisor', `the rule supervisor of space "${space.id}", "${supervisor}", was kicked, so no rule would ever decide`);
  }
}

/** Waits for `change` (a supervisor applying rules) at most `ms`; its failure is the supervisor's to log, not the API's. */
async function appliedWithin(change: void | Promise<unknown>, ms: number): Promise<void> {
  if (!change) return;
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([change.catch(() => undefined), new Promise((done) => (timer = setTimeout(done, ms)))]);
  clearTimeout(timer);
}

function throwing(error: Error): never {
  throw error;
}

async function validBody(req: IncomingMessage, limit: number) {
  const result = validateRule(await readJsonBody(req, limit));
  if (!result.ok) {
    const first = result.issues[0];
    throw new GatewayError('invalid_rule', `invalid rule: ${first.path.join('.') || '(rule)'}: ${first.message}`, { issues: result.issues });
  }
  return result.rule;
}

function methodNotAllowed(res: ServerResponse, allow: string): never {
  res.setHeader('Allow', allow);
  throw new GatewayError('method_not_allowed', `use ${allow}`);
}
