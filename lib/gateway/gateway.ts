import { randomUUID } from 'node:crypto';
import {
  GATEWAY_EMITTED_KINDS,
  PROTOCOL_VERSION,
  isReservedKind,
  parseEnvelope,
  type Envelope,
} from '../protocol';
import { resolveLimits, type GatewayLimits } from './gateway-options';
import { GatewayError } from './gateway-error';
import { OutboundMessage } from './outbound-message';
import { Participant, type Connection, type RoutingMode } from './participant';
import { Space } from './space';
import type { SpaceConfig } from './space-config';
import { TokenStore } from './token-store';

export interface GatewayOptions {
  spaces: SpaceConfig[];
  /** Where minted tokens (and later grants and the audit log) live. Required when a participant has no configured token. */
  dataDir?: string;
  /** Overrides applied on top of each space's own `limits`. */
  limits?: Partial<GatewayLimits>;
}

/** A participant's live session: the transport feeds it frames and tells it when the peer is gone. */
export interface Session {
  readonly participant: Participant;
  readonly space: Space;
  /** Runs one inbound frame through the pipeline; refusals go back to the sender as `system/error`. */
  receive(data: Buffer | string): void;
  /** The transport lost the peer: presence leave is broadcast. */
  end(): void;
}

/**
 * The transport-agnostic gateway: spaces, authentication and the enforcement pipeline.
 * Transports (WebSocket, HTTP) only move bytes; every decision is made here, once.
 */
export class Gateway {
  readonly spaces = new Map<string, Space>();
  /** The space used when a client names none (the first configured). */
  readonly defaultSpaceId: string;

  constructor(options: GatewayOptions) {
    if (options.spaces.length === 0) throw new TypeError('a gateway needs at least one space');
    for (const config of options.spaces) {
      if (this.spaces.has(config.id)) throw new TypeError(`space "${config.id}" is configured twice`);
      const limits = resolveLimits(config.limits, options.limits);
      const space = new Space(config.id, config.name, limits);
      const store = config.participants.some((p) => !p.tokens?.length)
        ? new TokenStore(requireDataDir(options.dataDir, config.id), config.id)
        : undefined;
      for (const pc of config.participants) {
        const participant = new Participant(pc.id, pc.capabilities, pc.routing, limits);
        space.participants.set(pc.id, participant);
        for (const token of pc.tokens?.length ? pc.tokens : [store!.tokenFor(pc.id)]) space.tokens.add(token, pc.id);
      }
      this.spaces.set(config.id, space);
    }
    this.defaultSpaceId = options.spaces[0].id;
  }

  /** The space a client asked for, or the default when it named none. */
  resolveSpace(spaceId?: string | null): Space | undefined {
    return this.spaces.get(spaceId || this.defaultSpaceId);
  }

  /** The participant a bearer token authenticates as in that space, if any. */
  authenticate(space: Space, token: string): Participant | undefined {
    const id = space.tokens.lookup(token);
    return id === undefined ? undefined : space.participants.get(id);
  }

  /** Binds an authenticated connection: welcome to it, presence to the others. */
  connect(space: Space, participant: Participant, connection: Connection, options: { routing?: RoutingMode } = {}): Session {
    participant.routing = options.routing ?? participant.defaultRouting;
    space.attach(participant, connection);
    return {
      participant,
      space,
      receive: (data) => {
        let value: unknown;
        try {
          value = decodeFrame(data, space.limits);
          this.accept(space, participant, value);
        } catch (e) {
          this.refuse(space, participant, e, value);
        }
      },
      end: () => space.detach(participant, connection),
    };
  }

  /**
   * Runs the pipeline on an already decoded value and routes it (HTTP injection uses this directly).
   * Order: reserved kinds → structure → identity → capability → rate limit. Throws GatewayError.
   */
  accept(space: Space, participant: Participant, value: unknown): Envelope {
    const kind = (value as { kind?: unknown } | null)?.kind;
    // Checked before the schema so that a forged system/* envelope is named for what it is.
    if (typeof kind === 'string' && (isReservedKind(kind) || GATEWAY_EMITTED_KINDS.has(kind))) {
      throw new GatewayError('reserved_kind', `only the gateway may send "${kind}"`, { attempted_kind: kind });
    }
    const parsed = parseEnvelope(value, { inbound: true });
    if (!parsed.ok) {
      throw new GatewayError('invalid_envelope', `invalid envelope: ${parsed.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ')}`, {
        issues: parsed.issues,
      });
    }
    const envelope = parsed.envelope as Envelope;
    if (envelope.from !== undefined && envelope.from !== participant.id) {
      throw new GatewayError('identity_mismatch', `"from" is "${envelope.from}" but this connection is "${participant.id}"`);
    }
    if (!participant.compiled.matches(envelope)) {
      throw new GatewayError('capability_violation', `you lack a capability for "${envelope.kind}" with this payload`, {
        attempted_kind: envelope.kind,
        your_capabilities: participant.capabilities,
      });
    }
    const retryAfterMs = participant.rate.take();
    if (retryAfterMs > 0) {
      throw new GatewayError('rate_limited', `rate limit of ${space.limits.ratePerSecond} envelopes/s exceeded`, {
        retry_after_ms: retryAfterMs,
      });
    }
    envelope.protocol ??= PROTOCOL_VERSION;
    envelope.id ??= randomUUID();
    envelope.ts ??= new Date().toISOString();
    envelope.from ??= participant.id;
    space.route(OutboundMessage.of(envelope));
    return envelope;
  }

  /** Answers a refused frame with a `system/error` to the sender alone; the connection stays open. */
  private refuse(space: Space, participant: Participant, error: unknown, value: unknown): void {
    const e = error instanceof GatewayError ? error : new GatewayError('internal_error', 'the gateway failed to process this message');
    if (!(error instanceof GatewayError)) console.error('[gateway] unexpected error while processing a frame:', error);
    const offendingId = (value as { id?: unknown } | null)?.id;
    space.emit(
      'system/error',
      { error: e.code, message: e.message, ...e.details },
      { to: [participant.id], correlationId: typeof offendingId === 'string' && offendingId ? [offendingId.slice(0, 256)] : undefined },
    );
  }
}

/** Size check and JSON parse of one frame (shared by WebSocket and HTTP). */
export function decodeFrame(data: Buffer | string, limits: GatewayLimits): unknown {
  const size = typeof data === 'string' ? Buffer.byteLength(data) : data.length;
  if (size > limits.maxFrameBytes) {
    throw new GatewayError('message_too_large', `message of ${size} bytes exceeds the limit of ${limits.maxFrameBytes} bytes`, {
      limit_bytes: limits.maxFrameBytes,
    });
  }
  try {
    return JSON.parse(typeof data === 'string' ? data : data.toString('utf8'));
  } catch (e) {
    throw new GatewayError('invalid_json', `not JSON: ${(e as Error).message}`);
  }
}

function requireDataDir(dataDir: string | undefined, spaceId: string): string {
  if (!dataDir) throw new TypeError(`space "${spaceId}" has participants without tokens, so the gateway needs a dataDir to keep minted ones`);
  return dataDir;
}
