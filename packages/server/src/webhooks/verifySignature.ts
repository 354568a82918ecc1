import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Signing and verification of webhook requests (D17). A request carries
 * `Pay-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, t + "." + raw body)>`; receivers verify it over the
 * raw body bytes exactly as received, before parsing the JSON. This module depends on node:crypto only, so receivers
 * can import it as `@paygate/server/webhooks/verify`.
 */

export const DEFAULT_TOLERANCE_SECONDS = 300;

function hmacHex(secret: string, timestamp: number, payload: string | Buffer): string {
  return createHmac('sha256', secret).update(`${timestamp}.`).update(payload).digest('hex');
}

/** The `Pay-Signature` header value for a body sent at `timestamp` (unix seconds). */
export function signatureHeader(secret: string, payload: string | Buffer, timestamp: number): string {
  return `t=${timestamp},v1=${hmacHex(secret, timestamp, payload)}`;
}

export interface VerifyWebhookSignatureInput {
  /** The raw request body, exactly as received. */
  payload: string | Buffer;
  /** The `Pay-Signature` header. */
  header: string | undefined;
  /** The endpoint's signing secret (`whsec_...`), shown once when the endpoint was created. */
  secret: string;
  /** Largest accepted distance between the signed time and now, either way (default 300 s). */
  toleranceSeconds?: number;
  now?: Date;
}

/**
 * True when the header holds a `v1` signature of the payload made with the secret, at a time within the tolerance
 * of now; false for anything else (missing or malformed header, altered body, wrong secret, stale or future time).
 * The comparison is constant-time. Several `v1` entries are allowed; one match is enough.
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
