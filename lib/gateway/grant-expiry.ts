import { expireGrant } from './grant-handlers';
import type { GrantRecord } from './persistence/space-records';
import type { Space } from './space';

/** The longest delay `setTimeout` keeps (about 24.8 days); a later expiry is reached in steps. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Revokes each grant of a space at its `expiresAt`. Armed when a grant is made and, for the stored ones, when the
 * gateway loads (one that lapsed while it was down expires at once), so expiry survives restarts.
 */
export class GrantExpiry {
  private readonly timers = new Set<ReturnType<typeof setTimeout>>();

  constructor(private readonly space: Space) {}

  arm(grant: Readonly<GrantRecord>): void {
    if (grant.expiresAt === undefined || grant.revoked) return;
    const at = Date.parse(grant.expiresAt);
    const timer = setTimeout(
      () => {
        this.timers.delete(timer);
        if (Date.now() < at) return this.arm(grant);
        try {
          expireGrant(this.space, grant.id);
        } catch (error) {
          console.error(`[gateway] could not expire grant ${grant.id}:`, (error as Error).message);
        }
      },
      Math.min(Math.max(0, at - Date.now()), MAX_TIMER_MS),
    );
    timer.unref?.();
    this.timers.add(timer);
  }

  /** Stops every timer (the gateway is closing). */
  cancel(): void {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }
}
