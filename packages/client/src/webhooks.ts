import { createHmac, timingSafeEqual } from 'node:crypto';
import type { paths } from './generated/openapi.ts';

/**
 * Webhook signatures. A delivery carries `Pay-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, t + "." + raw
 * body)>`; verify it over the raw body bytes exactly as received, before parsing the JSON. This is the service's own
 * algorithm, so what it signs this verifies.
 */

export const DEFAULT_TOLERANCE_SECONDS = 300;

/** The event types a webhook endpoint can subscribe to. */
export type WebhookEventType =
  paths['/v1/webhooks']['post']['requestBody']['content']['application/json']['events'][number];

/** A webhook delivery's body. `data.object` is the resource as the API returns it (a payment, a merchant...). */
export interface WebhookEvent {
  id: string;
  /** `webhook.test` is sent only when a test event is asked for (`POST /v1/webhooks/{id}/test-events`). */
  type: WebhookEventType | 'webhook.test';
  createdAt: string;
  apiVersion: string;
  data: { object: Record<string, unknown> };
}

function hmacHex(secret: string, timestamp: number, payload: string | Uint8Array): string {
  return createHmac('sha256', secret).update(`${timestamp}.`).update(payload).digest('hex');
}

/** The `Pay-Signature` header value for a body sent at `timestamp` (unix seconds), e.g. to test a receiver. */
export function signatureHeader(secret: string, payload: string | Uint8Array, timestamp: number): string {
  return `t=${timestamp},v1=${hmacHex(secret, timestamp, payload)}`;
}

export interface VerifyWebhookSignatureInput {
  /** The raw request body, exactly as received. */
  payload: string | Uint8Array;
  /** The `Pay-Signature` header. */
  header: string | null | undefined;
  /** The endpoint's signing secret (`whsec_...`), shown once when the endpoint was created. */
  secret: string;
  /** Largest accepted distance between the signed time and now, either way (default 300 s). */
  toleranceSeconds?: number;
  now?: Date;
}

/**
 * True when the header holds a `v1` signature of the payload made with the secret, at a time within the tolerance
 * of now; false for anything else (missing or malformed header, altered body, wrong secret, stale or future time).
 * The comparison is constant-time. Several `v1` entries are allowed (while a secret is rotated); one match is enough.
 */
export function verifyWebhookSignature(input: VerifyWebhookSignatureInput): boolean {
  if (typeof input.header !== 'string' || input.header.length > 4096) return false;
  let timestamp: number | undefined;
  const signatures: string[] = [];
  for (const part of input.header.split(',')) {
    const [name, value, extra] = part.trim().split('=');
    if (value === undefined || extra !== undefined) continue;
    if (name === 't' && /^\d{1,12}$/.test(value)) timestamp = Number(value);
    else if (name === 'v1' && /^[0-9a-f]{64}$/.test(value)) signatures.push(value);
  }
  if (timestamp === undefined || signatures.length === 0) return false;
  const nowSeconds = Math.floor((input.now ?? new Date()).getTime() / 1000);
  if (Math.abs(nowSeconds - timestamp) > (input.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS)) return false;
  const expected = Buffer.from(hmacHex(input.secret, timestamp, input.payload), 'hex');
  let matched = false;
  for (const signature of signatures) {
    // Every candidate is compared, so the time taken does not reveal which one matched.
    if (timingSafeEqual(expected, Buffer.from(signature, 'hex'))) matched = true;
  }
  return matched;
}

/** A delivery whose signature does not verify: answer it with a 4xx and do not act on it. */
export class WebhookSignatureError extends Error {
  override readonly name = 'WebhookSignatureError';
}

/** Verifies a delivery's signature, then parses its body; throws `WebhookSignatureError` when it does not verify. */
export function parseWebhookEvent(input: VerifyWebhookSignatureInput): WebhookEvent {
  if (!verifyWebhookSignature(input)) throw new WebhookSignatureError('webhook signature does not verify');
  const text = typeof input.payload === 'string' ? input.payload : new TextDecoder().decode(input.payload);
  return JSON.parse(text) as WebhookEvent;
}
