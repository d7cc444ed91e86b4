import { describe, expect, it } from 'vitest';
import { CLOSE_CODES, ERROR_CODES, ERROR_HTTP_STATUS, isErrorCode } from './error-codes';

describe('error codes', () => {
  it('include every code of the DESIGN.md table', () => {
    for (const code of [
      'invalid_json',
      'invalid_envelope',
      'message_too_large',
      'identity_mismatch',
      'reserved_kind',
      'capability_violation',
      'grant_exceeds_own_capabilities',
      'participant_paused',
      'participant_shutdown',
      'rate_limited',
      'unknown_participant',
      'unknown_stream',
      'unauthorized_stream_write',
      'already_exists',
    ]) {
      expect(isErrorCode(code), code).toBe(true);
    }
  });

  it('describe each code in one non-empty line', () => {
    for (const description of Object.values(ERROR_CODES)) {
      expect(description.length).toBeGreaterThan(0);
      expect(description).not.toContain('\n');
    }
  });

  it('give every code an HTTP error status', () => {
    expect(Object.keys(ERROR_HTTP_STATUS).sort()).toEqual(Object.keys(ERROR_CODES).sort());
    for (const status of Object.values(ERROR_HTTP_STATUS)) expect(status).toBeGreaterThanOrEqual(400);
    expect(ERROR_HTTP_STATUS.invalid_token).toBe(401);
    expect(ERROR_HTTP_STATUS.message_too_large).toBe(413);
  });

  it('reject strings that are not codes, including inherited object keys', () => {
    expect(isErrorCode('nope')).toBe(false);
    expect(isErrorCode('toString')).toBe(false);
    expect(isErrorCode(1)).toBe(false);
  });
});

describe('close codes', () => {
  it('are distinct and either RFC 6455 codes or in the application range', () => {
    const codes = Object.values(CLOSE_CODES);
    expect(new Set(codes).size).toBe(codes.length);
    for (const code of codes) expect((code >= 1000 && code < 1016) || (code >= 4000 && code < 5000)).toBe(true);
  });

  it('use the codes DESIGN.md names for bad tokens and kicks', () => {
    expect(CLOSE_CODES.unauthorized).toBe(4401);
    expect(CLOSE_CODES.kicked).toBe(4403);
  });
});
