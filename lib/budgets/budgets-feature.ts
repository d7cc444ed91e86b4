import type { SpaceFeature } from '../host/space-feature';
import { createBudgetRoute } from './budget-api';

/**
 * Participants' budgets as operators see and set them (`/api/spaces/{space}/budgets`). What a participant spent is
 * counted, and its limits enforced, by the gateway itself from its statuses (the message path).
 */
export function budgetsFeature(): SpaceFeature {
  return {
    name: 'budgets',
    start: (context) => ({ routes: [createBudgetRoute(context.gateway)], stop: () => undefined }),
  };
}
