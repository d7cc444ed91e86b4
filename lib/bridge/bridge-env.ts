/**
 * How a remote MCP server's URL and headers reach the bridge's runner (`run-bridge.ts`): in its environment, not on
 * its command line, where `ps` would show them. `bridgeProcess` writes them (as the launcher's templates, which it
 * fills when it starts the process) and the runner reads them, taking them out of its environment.
 */
export const BRIDGE_ENV = {
  /** The remote server's URL (the CLI's `--url` wins). */
  url: 'MEW_BRIDGE_URL',
  /** `MEW_BRIDGE_HEADER_0`, `_1`…: one header each, written `Name: value`. */
  headerPrefix: 'MEW_BRIDGE_HEADER_',
} as const;

/** An HTTP header name (RFC 9110 token). */
export const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/**
 * The environment that hands the runner a remote server's headers, one variable each.
 *
 * @example
 * headersEnv({ Authorization: 'Bearer ${API_KEY}' }); // { MEW_BRIDGE_HEADER_0: 'Authorization: Bearer ${API_KEY}' }
 */
export function headersEnv(headers: Readonly<Record<string, string>> = {}): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, value], i) => [`${BRIDGE_ENV.headerPrefix}${i}`, `${name}: ${value}`]));
}

/**
 * The headers in the runner's environment, taken out of it (nothing the runner dumps may show them). Throws, naming
 * the variable and never the value, for one that is not `Name: value` or whose value could not be sent.
 */
export function readHeadersEnv(env: Record<string, string | undefined> = process.env): Record<string, string> {
  const headers: Record<string, string> = {};
  const variables = Object.keys(env)
    .filter((key) => key.startsWith(BRIDGE_ENV.headerPrefix))
    .sort((a, b) => Number(a.slice(BRIDGE_ENV.headerPrefix.length)) - Number(b.slice(BRIDGE_ENV.headerPrefix.length)));
  for (const variable of variables) {
    const line = env[variable] ?? '';
    delete env[variable];
    const colon = line.indexOf(':');
    const name = line.slice(0, colon).trim();
    if (colon < 0 || !HEADER_NAME.test(name)) throw new Error(`${variable} must be "Name: value"`);
    const value = line.slice(colon + 1).trim();
    if (/[\r\n\0]/.test(value)) throw new Error(`${variable}: the value of header ${name} has a line break or NUL`);
    headers[name] = value;
  }
  return headers;
}
