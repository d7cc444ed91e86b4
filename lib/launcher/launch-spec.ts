import { z } from 'zod';

/** When a launched participant is started again after its process ends. */
export const RESTART_POLICIES = ['always', 'on-failure', 'never'] as const;
export type RestartPolicyName = (typeof RESTART_POLICIES)[number];

/** How to start a participant's process (the reference implementation's `space.yaml` fields). */
export const launchFieldsSchema = {
  /** Any program; it joins with the token the server hands it (`${TOKEN}`). */
  command: z.string().min(1).optional(),
  args: z.array(z.string()).optional(),
  env: z.record(z.string(), z.string()).optional(),
  /** Relative to the config file's folder. @default that folder */
  cwd: z.string().optional(),
  /** @default true when a command is given */
  auto_start: z.boolean().optional(),
  /** @default 'on-failure' */
  restart: z.enum(RESTART_POLICIES).optional(),
  /** An MCP server (stdio) the server puts into the space through the MCP bridge, instead of a `command`. */
  bridge: z
    .strictObject({
      command: z.string().min(1),
      args: z.array(z.string()).optional(),
      /** For the MCP server. */
      env: z.record(z.string(), z.string()).optional(),
      /** The MCP server's directory, relative to the config file's folder. @default the participant's `cwd` */
      cwd: z.string().optional(),
    })
    .optional(),
};

/** A participant's process, resolved from its config entry. */
export interface LaunchSpec {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
  autoStart: boolean;
  restart: RestartPolicyName;
}
