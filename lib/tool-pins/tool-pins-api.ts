import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AuditSink } from '../gateway/audit-sink';
import type { Gateway } from '../gateway/gateway';
import { GatewayError } from '../gateway/gateway-error';
import { requireCaller, requireOperator } from '../gateway/http-caller';
import { decodePathSegment, sendJson } from '../gateway/http-util';
import type { ToolDefinitions, ToolPinAccepted, ToolPinList } from '../protocol';
import type { ToolPinRecords } from './tool-pin-records';

const TOOLS_PATH = /^\/api\/spaces\/([^/]+)\/tools(?:\/([^/]+)\/([^/]+)\/(accept|definitions))?$/;

/**
 * The space's pinned tool definitions: `GET /api/spaces/{space}/tools` (members) lists each tool seen with its
 * current and pinned hash; `GET …/tools/{participant}/{tool}/definitions` (members) gives both definitions, for a
 * diff; `POST …/tools/{participant}/{tool}/accept` (operators) pins a changed tool's current definition, audited in
 * the same transaction (`TOOL_DEFINITION_ACCEPTED`).
 */
export function createToolPinsRoute(gateway: Gateway, records: ToolPinRecords, audit: AuditSink) {
  return async function handleTools(req: IncomingMessage, res: ServerResponse, url: URL): Promise<boolean> {
    const match = TOOLS_PATH.exec(url.pathname);
    if (!match) return false;
    const space = gateway.spaces.get(decodePathSegment(match[1]));
    if (!space) throw new GatewayError('unknown_space', `no space "${match[1]}"`);
    const [participant, tool, action] = [match[2] && decodePathSegment(match[2]), match[3] && decodePathSegment(match[3]), match[4]];
    const method = action === 'accept' ? 'POST' : 'GET';
    if (req.method !== method) {
      res.setHeader('Allow', method);
      throw new GatewayError('method_not_allowed', `use ${method}`);
    }
    if (!participant || !tool) {
      requireCaller(gateway, space, req);
      sendJson(res, 200, { tools: records.list() } satisfies ToolPinList);
      return true;
    }
    const unknown = () => new GatewayError('unknown_tool', `no tool "${tool}" of "${participant}" seen in space "${space.id}"`);
    if (action === 'definitions') {
      requireCaller(gateway, space, req);
      sendJson(res, 200, (records.definitions(participant, tool) ?? throwing(unknown())) satisfies ToolDefinitions);
      return true;
    }
    const by = requireOperator(gateway, space, req, 'accepting a tool definition').id;
    const before = records.list().find((t) => t.participant === participant && t.name === tool);
    if (!before) throw unknown();
    const accepted = records.accept(participant, tool, by, () =>
      audit.recordNow({
        space: space.id,
        type: 'TOOL_DEFINITION_ACCEPTED',
        actor: by,
        subject: participant,
        details: { tool, previous_hash: before.pinned_hash, hash: before.hash },
      }),
    )!;
    sendJson(res, 200, { tool: accepted } satisfies ToolPinAccepted);
    return true;
  };
}

function throwing(error: Error): never {
  throw error;
}
