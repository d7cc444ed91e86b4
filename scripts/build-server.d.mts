/** See build-server.mjs. */
export const serverEntries: { gateway: string; server: string; 'bare-relay': string };
export const gatewayNodeFlags: string[];
export function staleReason(): string | undefined;
export function buildServer(): Promise<void>;
export function buildServerIfStale(options?: { quiet?: boolean }): Promise<typeof serverEntries>;
