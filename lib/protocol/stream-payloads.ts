import { z } from 'zod';

const participantIds = z.array(z.string().min(1));

/**
 * `stream/request` (spec §3.10.1): asks for a data stream. The gateway MUST intercept every one, whatever its
 * `to`, and reply with `stream/open`.
 */
export const streamRequestPayloadSchema = z.looseObject({
  /** Whether the sender will `upload` or `download` data. */
  direction: z.string(),
  /** Advisory size; MAY be omitted. */
  expected_size_bytes: z.number().nonnegative().optional(),
  /** What the stream carries. */
  description: z.string().optional(),
  /** Participants who should receive the frames (our gateway); absent means everyone. */
  target: participantIds.optional(),
  /** Frame encoding, e.g. `binary`, `text`, `jsonl`. */
  encoding: z.string().optional(),
  /** Others who may write frames besides the requester (our gateway). */
  authorized_writers: participantIds.optional(),
});

/** `stream/open` (spec §3.10.2): gateway-only; assigns the id used in `#streamID#data` frames. */
export const streamOpenPayloadSchema = z.looseObject({
  /** MUST be unique per active stream. */
  stream_id: z.string().min(1),
  /** Frame encoding, e.g. `binary`. */
  encoding: z.string().optional(),
  /** The participant that requested the stream; it (or the gateway) closes it. */
  owner: z.string().min(1).optional(),
  /** Participants allowed to send frames. */
  authorized_writers: participantIds.optional(),
  /** Participants the frames are delivered to; absent means everyone. */
  target: participantIds.optional(),
  /** Direction copied from the request. */
  direction: z.string().optional(),
  /** What the stream carries, copied from the request (our gateway). */
  description: z.string().optional(),
});

/**
 * `stream/close` (spec §3.10.4): either side MAY close; no `#streamID#` frames after it. The stream is named by
 * `stream_id`, or by `correlation_id` referencing the `stream/open` as in the spec's example.
 */
export const streamClosePayloadSchema = z.looseObject({
  /** The stream to close. */
  stream_id: z.string().min(1).optional(),
  /** SHOULD distinguish completion from errors, e.g. `complete`, `cancelled`, `timeout`. */
  reason: z.string().optional(),
});

export type StreamRequestPayload = z.infer<typeof streamRequestPayloadSchema>;
export type StreamOpenPayload = z.infer<typeof streamOpenPayloadSchema>;
export type StreamClosePayload = z.infer<typeof streamClosePayloadSchema>;
