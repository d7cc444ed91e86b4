import type { IncomingMessage, ServerResponse } from 'node:http';
import { limitsSomething } from './budget';
import { budgetLimitsSchema, type BudgetAnswer, type BudgetLimits, type BudgetList } from '../protocol';
import type { Gateway } from '../gateway/gateway';
import { GatewayError } from '../gateway/gateway-error';
import { requireCaller } from '../gateway/http-caller';
import { decodePathSegment, readJsonBody, sendJson } from '../gateway/http-util';
import { requireParticipant } from '../gateway/management';

const BUDGETS_PATH = /^\/api\/spaces\/([^/]+)\/budgets(?:\/([^/]+))?$/;

/**
 * The participants' budgets of a space: `GET /api/spaces/{space}/budgets` (any member: `{budgets: [...]}` with spend
 * and state), `GET`/`PUT`/`DELETE …/budgets/{participant}` (`{tokens?, usd?, price_per_1k_tokens_usd?}`; DELETE
 * goes back to the config's). Changing one is for operators, the rule of the audit and rules APIs; each change is
 * persisted and audited in one transaction. The gateway enforces them (`SpaceBudgets`).
 */
export function createBudgetRoute(gateway: Gateway) {
  return async function handleBudgets(req: IncomingMessage, res: ServerResponse, url: URL): Promise<boolean> {
    const match = BUDGETS_PATH.exec(url.pathname);
    if (!match) return false;
    const space = gateway.spaces.get(decodePathSegment(match[1]));
    if (!space) throw new GatewayError('unknown_space', `no space "${match[1]}"`);
    const caller = requireCaller(gateway, space, req);
    const allowed = match[2] === undefined ? 'GET' : 'GET, PUT, DELETE';
    if (!allowed.split(', ').includes(req.method ?? '')) {
      res.setHeader('Allow', allowed);
      throw new GatewayError('method_not_allowed', `use ${allowed}`);
    }
    if (match[2] === undefined) {
      const list: BudgetList = { budgets: space.budgets.list() };
      sendJson(res, 200, list);
      return true;
    }
    const participant = requireParticipant(space, decodePathSegment(match[2]), 'the path');
    if (req.method !== 'GET' && !caller.operator) {
      throw new GatewayError('capability_violation', 'setting budgets needs the admin token or an operator’s token (unrestricted capability/grant)');
    }
    if (req.method === 'PUT') space.budgets.set(participant, validBudget(await readJsonBody(req, space.limits.maxFrameBytes)), caller.id);
    else if (req.method === 'DELETE') space.budgets.clear(participant, caller.id);
    const answer: BudgetAnswer = { budget: space.budgets.report(participant.id) ?? null };
    sendJson(res, 200, answer);
    return true;
  };
}

/** A budget an operator sets: the config's fields, at least one of them a limit. */
function validBudget(body: unknown): BudgetLimits {
  const parsed = budgetLimitsSchema.safeParse(body);
  const issues = parsed.success
    ? limitsSomething(parsed.data)
      ? []
      : [{ path: [], message: 'give tokens and/or usd (DELETE clears the budget)' }]
    : parsed.error.issues.map((i) => ({ path: i.path.map((p) => (typeof p === 'symbol' ? String(p) : p)), message: i.message }));
  if (parsed.success && issues.length === 0) return parsed.data;
  const [first] = issues;
  throw new GatewayError('invalid_budget', `invalid budget: ${first.path.join('.') || '(budget)'}: ${first.message}`, { issues });
}
