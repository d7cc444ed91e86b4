/**
 * The OAuth-protected test MCP server as a process of its own, for the end-to-end journeys (playwright.config starts
 * it beside the app): `PORT=3342 node --import tsx lib/mcp-oauth/testing/run-oauth-mcp-server.ts`. Test use only.
 */
import { OAuthMcpServer } from './oauth-mcp-server';

const server = await OAuthMcpServer.start({ port: Number(process.env.PORT ?? 0) });
console.log(`OAuth-protected MCP server at ${server.url}`);
for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, () => void server.close().then(() => process.exit(0)));
