/**
 * Every Redis key of cluster mode, in one place. A space's keys share the `{space}` hash tag so that they would
 * live in one slot of a Redis Cluster; node keys are per node.
 */
export const clusterKeys = {
  /** The space's owner: its node id, with a TTL the owner keeps renewing. */
  lease: (space: string) => `mew:{${space}}:lease`,
  /** Incremented on every takeover; the owner's writes carry it and are refused once another took over. */
  fence: (space: string) => `mew:{${space}}:fence`,
  /**
   * Set when a node found the space's state gone from Redis (its fencing token went back, or a takeover found part of
   * it missing): no node serves the space while it exists. Its value is the highest fencing token any node
   * remembered, the floor a deliberate start-over (`MEW_CLUSTER_START_OVER`) moves the fence to.
   */
  lost: (space: string) => `mew:{${space}}:lost`,
  /** The last batch the owner's fenced writes applied (`<fence>:<batch>`): a batch sent again is not applied twice. */
  written: (space: string) => `mew:{${space}}:written`,
  /**
   * Hash: `epoch` (the history's numbering), `inpos` (the last inbox entry the owner's writes account for), `records`
   * (tokens, grants, revocations, invites, kicks, pauses, budgets), `streams` (the open streams) and `audit` (how
   * many events the audit stream holds: a takeover that finds fewer refuses the space).
   */
  meta: (space: string) => `mew:{${space}}:meta`,
  /** Stream: every numbered envelope the owner accepted or emitted, capped at the space's history size. */
  history: (space: string) => `mew:{${space}}:history`,
  /** Hash: each live connection (`node` newline `connection`) → `{p, r}`, its participant and routing mode. */
  presence: (space: string) => `mew:{${space}}:presence`,
  /** Stream: what the nodes' connections send to the space (attach, frames, detach), read by its owner. */
  inbox: (space: string) => `mew:{${space}}:in`,
  /** Hash per feature table (rules, notifications…): the space's rows by key, as JSON; written by the owner, loaded at takeover. */
  table: (space: string, table: string) => `mew:{${space}}:table:${table}`,
  /** Before feature tables: a stream of the rows inserted into approval_rules and rule_events (read once by `load`). */
  legacyRules: (space: string) => `mew:{${space}}:rules`,
  /** Stream: the space's audit events, never trimmed (the durable audit record of a cluster). */
  audit: (space: string) => `mew:{${space}}:audit`,
  /** Before feature tables: a hash per notification table, as `table` keeps them now (read once by `load`). */
  legacyNotify: (space: string, table: string) => `mew:{${space}}:notify:${table}`,
  /** Hash: the secrets the whole cluster shares (`vapid`, `action_token_key`), minted once. */
  secrets: () => 'mew:notify:secrets',
  /** A SCAN pattern matching every key of the space (a start-over deletes what is left of it). */
  spacePattern: (space: string) => `mew:{${space.replace(/[*?[\]\\]/g, '\\$&')}}:*`,
  /** A live node's heartbeat (its HTTP base URL), with a TTL it keeps renewing. */
  nodeAlive: (node: string) => `mew:node:${node}:alive`,
  /** Stream: what owners send to one node's connections, in each owner's order. */
  nodeOutbox: (node: string) => `mew:node:${node}:out`,
} as const;
