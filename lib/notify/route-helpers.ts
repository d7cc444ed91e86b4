import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Gateway } from '../gateway/gateway';
import { GatewayError } from '../gateway/gateway-error';
import { decodePathSegment } from '../gateway/http-util';
import type { Space } from '../gateway/space';

/** The space a path names; 404 `unknown_space` otherwise. */
export function spaceOfPath(gateway: Gateway, segment: string): Space {
  const space = gateway.spaces.get(decodePathSegment(segment));
  if (!space) throw new GatewayError('unknown_space', `no space "${segment}"`);
  return space;
}

/** 405 with an `Allow` header unless the request uses one of `allowed`. */
export function allowMethods(req: IncomingMessage, res: ServerResponse, allowed: readonly string[]): void {
  if (allowed.includes(req.method ?? '')) return;
  res.setHeader('Allow', allowed.join(', '));
  throw new GatewayError('method_not_allowed', `use ${allowed.join(' or ')}`);
}
