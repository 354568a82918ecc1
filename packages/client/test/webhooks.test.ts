import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import * as service from '../../server/src/webhooks/verifySignature.ts';
import { parseWebhookEvent, signatureHeader, verifyWebhookSignature, WebhookSignatureError } from '../src/webhooks.ts';

const SECRET = 'whsec_client-test';
const SIGNED_AT = 1_772_000_000;
const at = (seconds: number) => new Date(seconds * 1000);

/** Headers as a receiver may get them: the service's own, re-timed, re-ordered, doubled, truncated or garbled. */
const headers = (payload: string) =>
  fc.oneof(
    fc.constant(service.signatureHeader(SECRET, payload, SIGNED_AT)),
    fc.integer({ min: SIGNED_AT - 400, max: SIGNED_AT + 400 }).map((t) => service.signatureHeader(SECRET, payload, t)),
    fc
      .string()
      .map((other) => `v1=${service.signatureHeader(SECRET, other, SIGNED_AT).split('v1=')[1]},t=${SIGNED_AT}`),
    fc.constant(`${service.signatureHeader(SECRET, payload, SIGNED_AT)},v1=${'0'.repeat(64)}`),
    fc.constant(service.signatureHeader(SECRET, payload, SIGNED_AT).slice(0, -1)),
    fc.string({ maxLength: 200 }),
    fc.constantFrom(undefined, '', 't=,v1=', `t=${SIGNED_AT}`, `t=${SIGNED_AT},v1=${'A'.repeat(64)}`),
  );

describe("the client's webhook verification", () => {
  it('signs exactly as the service signs', () => {
    fc.assert(
      fc.property(fc.string(), fc.string({ minLength: 1 }), fc.nat({ max: 4_000_000_000 }), (payload, secret, t) => {
        expect(signatureHeader(secret, payload, t)).toBe(service.signatureHeader(secret, payload, t));
      }),
    );
  });

  it('accepts and refuses exactly what the service would, for any body, header, secret and time', () => {
    const outcomes = new Set<boolean>();
    fc.assert(
      fc.property(
        fc.string().chain((payload) => fc.tuple(fc.constant(payload), headers(payload))),
        fc.constantFrom(SECRET, `${SECRET}x`),
        fc.integer({ min: -400, max: 400 }),
        fc.option(fc.integer({ min: 0, max: 600 }), { nil: undefined }),
        ([payload, header], secret, skew, toleranceSeconds) => {
          const input = {
            payload,
            header,
            secret,
            now: at(SIGNED_AT + skew),
            ...(toleranceSeconds === undefined ? {} : { toleranceSeconds }),
          };
          const verified = verifyWebhookSignature(input);
          expect(verified).toBe(service.verifyWebhookSignature(input));
          outcomes.add(verified);
        },
      ),
      { numRuns: 500 },
    );
    expect([...outcomes].sort()).toEqual([false, true]);
  });

  it('parses a verified delivery and throws WebhookSignatureError for one that does not verify', () => {
    const payload = JSON.stringify({ id: 'evt_1', type: 'payment.succeeded', data: { object: { id: 'pay_1' } } });
    const header = service.signatureHeader(SECRET, payload, SIGNED_AT);
    const now = at(SIGNED_AT + 5);
    expect(parseWebhookEvent({ payload, header, secret: SECRET, now })).toMatchObject({ type: 'payment.succeeded' });
    expect(parseWebhookEvent({ payload: new TextEncoder().encode(payload), header, secret: SECRET, now }).id).toBe(
      'evt_1',
    );
    expect(() => parseWebhookEvent({ payload: `${payload} `, header, secret: SECRET, now })).toThrow(
      WebhookSignatureError,
    );
    expect(() => parseWebhookEvent({ payload, header: null, secret: SECRET, now })).toThrow(WebhookSignatureError);
  });
});
