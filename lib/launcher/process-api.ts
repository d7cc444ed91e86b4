import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ProcessAction, ProcessList, ProcessReport } from '../protocol';
import type { AuditSink } from '../gateway/audit-sink';
import type { Gateway } from '../gateway/gateway';
import { GatewayError } from '../gateway/gateway-error';
import { bearer, decodePathSegment, sendJson } from '../gateway/http-util';
import type { Participant } from '../gateway/participant';
import type { ProcessControl, ProcessView } from './process-control';
import type { Space } from '../gateway/space';

const PROCESSES_PATH = /^\/api\/spaces\/([^/]+)\/processes(?:\/([^/]+)\/(start|stop|restart))?$/;

/**
 * The control a process action stands for: starting or restarting a participant's process is what
 * `participant/restart` asks of it, stopping what `participant/shutdown` asks. Whoever may send that control to the
 * participant may do it to its process: the same capability rules, enforced here.
 */
const ACTION_KIND: Record<ProcessAction, 'participant/restart' | 'participant/shutdown'> = {
  start: 'participant/restart',
  restart: 'participant/restart',
  stop: 'participant/shutdown',
};

const AUDIT_TYPE: Record<ProcessAction, 'PROCESS_STARTED' | 'PROCESS_STOPPED' | 'PROCESS_RESTARTED'> = {
  start: 'PROCESS_STARTED',
  stop: 'PROCESS_STOPPED',
  restart: 'PROCESS_RESTARTED',
};

/**
 * `GET /api/spaces/{space}/processes`: the participants the server launches and their process state, for any
 * participant of the space (everyone sees presence anyway); the log tail only to those who may control that
 * process, and the admin. `POST /api/spaces/{space}/processes/{id}/start|stop|restart`: 202 once done, audited;
 * allowed to the admin and to a participant whose capabilities allow the matching control.
 */
export function createProcessRoute(gateway: Gateway, audit: AuditSink, control: () => ProcessControl | undefined) {
  return async function handleProcesses(req: IncomingMessage, res: ServerResponse, url: URL): Promise<boolean> {
    const match = PROCESSES_PATH.exec(url.pathname);
    if (!match) return false;
    const [, spaceId, target, action] = match as unknown as [string, string, string | undefined, ProcessAction | undefined];
    const method = action ? 'POST' : 'GET';
    if (req.method !== method) {
      res.setHeader('Allow', method);
      throw new GatewayError('method_not_allowed', `use ${method}`);
    }
    const space = gateway.spaces.get(decodePathSegment(spaceId));
    if (!space) throw new GatewayError('unknown_space', `no space "${spaceId}"`);
    const token = bearer(req);
    const admin = token !== undefined && gateway.isAdmin(space, token);
    const caller = token && !admin ? gateway.authenticate(space, token, { via: 'http', address: req.socket.remoteAddress }) : undefined;
    if (!admin && !caller) throw new GatewayError('invalid_token', token ? 'unknown or revoked token' : 'missing Authorization: Bearer token');
    const processes = control();

    if (!action || !target) {
      const list = processes?.list(space.id) ?? [];
      const body: ProcessList = {
        processes: list.map(({ participantId, process }) => describe(participantId, process, admin || mayControl(caller!, 'restart'))),
      };
      sendJson(res, 200, body);
      return true;
    }
    const participantId = decodePathSegment(target);
    if (!admin && !mayControl(caller!, action)) {
      throw new GatewayError(
        'capability_violation',
        `your capabilities do not allow ${ACTION_KIND[action]}, so you may not ${action} the process of ${participantId}`,
      );
    }
    const done = !processes ? false : action === 'start' ? processes.start(space.id, participantId) : await processes[action](space.id, participantId);
    if (!done) throw new GatewayError('unknown_participant', `the server does not launch "${participantId}" in space "${space.id}"`);
    record(audit, space, admin ? 'admin' : caller!.id, participantId, action);
    const process = processes!.list(space.id).find((entry) => entry.participantId === participantId)!.process;
    sendJson(res, 202, describe(participantId, process, true));
    return true;
  };
}

/** Capabilities match kind and payload, not addressees: who may send the control may send it to anyone. */
function mayControl(caller: Participant, action: ProcessAction): boolean {
  return caller.compiled.matches({ kind: ACTION_KIND[action], payload: {} });
}

function describe(participantId: string, process: ProcessView, withLog: boolean): ProcessReport {
  const { tail, logFile, ...state } = process;
  return { participant: participantId, ...state, ...(withLog && { tail, log_file: logFile }) };
}

function record(audit: AuditSink, space: Space, actor: string, subject: string, action: ProcessAction): void {
  audit.record({ space: space.id, type: AUDIT_TYPE[action], actor, subject, details: {} });
}
