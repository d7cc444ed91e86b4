import { describe, expect, it } from 'vitest';
import {
  GATEWAY_EMITTED_KINDS,
  GATEWAY_ONLY_KINDS,
  isGatewayEmittedKind,
  isKind,
  isParticipantControlKind,
  isPauseExemptKind,
  isReservedKind,
  isRoutineFor,
  KINDS,
  OPTIONAL_PAYLOAD_KINDS,
  PARTICIPANT_CONTROL_KINDS,
  PAUSE_EXEMPT_KINDS,
} from './kinds';

describe('KINDS', () => {
  it('lists the 33 kinds of spec §3 plus space/invite-ack, system/security-event and system/approval, each once', () => {
    expect(KINDS).toHaveLength(36);
    expect(new Set(KINDS).size).toBe(KINDS.length);
    expect(KINDS).toContain('space/invite-ack');
    expect(KINDS).toContain('participant/request-status');
  });

  it('recognises known kinds and nothing else', () => {
    expect(isKind('chat')).toBe(true);
    expect(isKind('participant/compact-done')).toBe(true);
    expect(isKind('participant/requestStatus')).toBe(false);
    expect(isKind('mcp/request:tools/call')).toBe(false);
    expect(isKind(42)).toBe(false);
    expect(isKind(undefined)).toBe(false);
  });
});

describe('kind families', () => {
  it('treats every system/ string as reserved, even kinds this version does not know', () => {
    expect(isReservedKind('system/welcome')).toBe(true);
    expect(isReservedKind('system/join')).toBe(true);
    expect(isReservedKind('stream/open')).toBe(false);
    expect(isReservedKind('chat')).toBe(false);
  });

  it('marks system kinds, stream/open and space/invite-ack as emitted by the gateway only', () => {
    expect([...GATEWAY_EMITTED_KINDS].sort()).toEqual([...GATEWAY_ONLY_KINDS].sort());
    for (const kind of KINDS.filter(isReservedKind)) expect(isGatewayEmittedKind(kind)).toBe(true);
    expect(isGatewayEmittedKind('stream/open')).toBe(true);
    expect(isGatewayEmittedKind('space/invite-ack')).toBe(true);
    expect(isGatewayEmittedKind('stream/request')).toBe(false);
    expect(isGatewayEmittedKind('stream/close')).toBe(false);
  });

  it('lets a paused participant send only replies and cancellations', () => {
    expect([...PAUSE_EXEMPT_KINDS].sort()).toEqual([
      'chat/acknowledge',
      'chat/cancel',
      'mcp/response',
      'participant/compact-done',
      'participant/status',
      'reasoning/cancel',
      'stream/close',
    ]);
    expect(isPauseExemptKind('mcp/response')).toBe(true);
    expect(isPauseExemptKind('mcp/request')).toBe(false);
    expect(isPauseExemptKind('chat')).toBe(false);
  });

  it('counts directives as participant controls but not the target’s own reports', () => {
    expect(PARTICIPANT_CONTROL_KINDS).toHaveLength(8);
    expect(isParticipantControlKind('participant/pause')).toBe(true);
    expect(isParticipantControlKind('participant/shutdown')).toBe(true);
    expect(isParticipantControlKind('participant/status')).toBe(false);
    expect(isParticipantControlKind('participant/compact-done')).toBe(false);
  });

  it('allows payload to be omitted only for resume, clear, restart and shutdown', () => {
    expect([...OPTIONAL_PAYLOAD_KINDS].sort()).toEqual(['participant/clear', 'participant/restart', 'participant/resume', 'participant/shutdown']);
  });
});

describe('isRoutineFor (what a coalescing connection may receive batched)', () => {
  const from = 'agent';
  it('holds high-rate kinds from others that are not addressed to me', () => {
    for (const kind of ['reasoning/thought', 'participant/status', 'chat', 'system/presence']) {
      expect(isRoutineFor({ kind, from }, 'human')).toBe(true);
      expect(isRoutineFor({ kind, from, to: ['lead'] }, 'human')).toBe(true);
    }
  });

  it('sends at once what is addressed to me, my own echoes, and every other kind', () => {
    expect(isRoutineFor({ kind: 'chat', from, to: ['lead', 'human'] }, 'human')).toBe(false);
    expect(isRoutineFor({ kind: 'participant/status', from: 'human' }, 'human')).toBe(false);
    for (const kind of [
      'mcp/proposal',
      'mcp/withdraw',
      'mcp/reject',
      'mcp/request',
      'mcp/response',
      'system/error',
      'system/welcome',
      'capability/grant',
      'capability/revoke',
      'participant/pause',
      'reasoning/start',
    ]) {
      expect(isRoutineFor({ kind, from }, 'human')).toBe(false);
    }
  });
});
