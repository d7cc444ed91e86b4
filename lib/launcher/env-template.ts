/**
 * `${NAME}` and `${NAME:-default}` in a launched participant's command, args and env. The server fills the names of
 * `SERVER_VARIABLES` when it starts the process (`DATA_DIR`: its data directory, absolute; `NODE`: its own Node); any other name comes from the server's environment, and a name
 * that is neither set nor defaulted is a config error (found when the config loads, not when the process starts).
 */
export const SERVER_VARIABLES = ['TOKEN', 'GATEWAY', 'SPACE', 'PORT', 'PARTICIPANT_ID', 'DATA_DIR', 'NODE'] as const;
export type ServerVariable = (typeof SERVER_VARIABLES)[number];

const REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;
const SERVER: ReadonlySet<string> = new Set(SERVER_VARIABLES);

/** The names a template needs from the server's environment that are neither set there nor defaulted. */
export function missingVariables(template: string, env: Readonly<Record<string, string | undefined>>): string[] {
  const missing: string[] = [];
  for (const [, name, fallback] of template.matchAll(REFERENCE)) {
    if (!SERVER.has(name) && fallback === undefined && env[name] === undefined) missing.push(name);
  }
  return missing;
}

/**
 * Fills a template: server variables from `server`, others from `env`, then their `:-default`. Text that is not a
 * reference is kept as written.
 *
 * @example
 * expand('${GATEWAY}?space=${SPACE}', { GATEWAY: 'ws://127.0.0.1:3000/ws', SPACE: 'demo' }, {}); // 'ws://127.0.0.1:3000/ws?space=demo'
 */
export function expand(template: string, server: Readonly<Partial<Record<ServerVariable, string>>>, env: Readonly<Record<string, string | undefined>>): string {
  return template.replace(REFERENCE, (_, name: string, fallback: string | undefined) => {
    const value = SERVER.has(name) ? server[name as ServerVariable] : env[name];
    return value ?? fallback ?? '';
  });
}
