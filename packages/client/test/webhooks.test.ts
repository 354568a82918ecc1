import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { parseWebhookEvent, signatureHeader, verifyWebhookSignature, WebhookSignatureError } from '../src/webhooks.ts';

const secret = 'whsec_unit-test-secret';
const body = '{"id":"evt_1","type":"payment.succeeded"}';
const signedAt = 1_772_000_000;
const at = (seconds: number) => new Date(seconds * 1000);

describe('verifyWebhookSignature', () => {
  it('accepts a body signed with the secret as t.body HMAC-SHA256 in hex', () => {
    const header = signatureHeader(secret, body, signedAt);
    const expected = createHmac('sha256', secret).update(`${signedAt}.${body}`).digest('hex');
    expect(header).toBe(`t=${signedAt},v1=${expected}`);
    expect(verifyWebhookSignature({ payload: body, header, secret, now: at(signedAt + 10) })).toBe(true);
    expect(verifyWebhookSignature({ payload: Buffer.from(body), header, secret, now: at(signedAt) })).toBe(true);
  });

  it('refuses an altered body, an altered timestamp and another secret', () => {
    const header = signatureHeader(secret, body, signedAt);
    const now = at(signedAt);
    expect(verifyWebhookSignature({ payload: body.replace('evt_1', 'evt_2'), header, secret, now })).toBe(false);
    expect(verifyWebhookSignature({ payload: `${body} `, header, secret, now })).toBe(false);
    expect(
      verifyWebhookSignature({
        payload: body,
        header: header.replace(`t=${signedAt}`, `t=${signedAt + 1}`),
        secret,
        now,
      }),
    ).toBe(false);
    expect(verifyWebhookSignature({ payload: body, header, secret: `${secret}x`, now })).toBe(false);
  });

  it('refuses timestamps outside the tolerance, either way (300 s by default)', () => {
    const header = signatureHeader(secret, body, signedAt);
    expect(verifyWebhookSignature({ payload: body, header, secret, now: at(signedAt + 300) })).toBe(true);
    expect(verifyWebhookSignature({ payload: body, header, secret, now: at(signedAt + 301) })).toBe(false);
    expect(verifyWebhookSignature({ payload: body, header, secret, now: at(signedAt - 301) })).toBe(false);
    expect(
      verifyWebhookSignature({ payload: body, header, secret, now: at(signedAt + 50), toleranceSeconds: 30 }),
    ).toBe(false);
  });

  it('refuses missing and malformed headers', () => {
    const valid = signatureHeader(secret, body, signedAt);
    const signature = valid.split('v1=')[1]!;
    const now = at(signedAt);
    for (const header of [
      undefined,
      '',
      'garbage',
      `t=${signedAt}`,
      `v1=${signature}`,
      `t=abc,v1=${signature}`,
      `t=${signedAt},v1=${signature.toUpperCase()}`,
      `t=${signedAt},v1=${signature.slice(2)}`,
      `t=${signedAt},v0=${signature}`,
    ]) {
      expect(verifyWebhookSignature({ payload: body, header, secret, now }), String(header)).toBe(false);
    }
  });

  it('accepts a header with several v1 signatures when one matches', () => {
    const valid = signatureHeader(secret, body, signedAt);
    const other = signatureHeader('whsec_old', body, signedAt).split(',')[1];
    expect(verifyWebhookSignature({ payload: body, header: `${valid},${other}`, secret, now: at(signedAt) })).toBe(
      true,
    );
    expect(verifyWebhookSignature({ payload: body, header: `t=${signedAt},${other}`, secret, now: at(signedAt) })).toBe(
      false,
    );
  });

  it('parses a verified delivery and throws WebhookSignatureError for one that does not verify', () => {
    const payload = JSON.stringify({ id: 'evt_1', type: 'payment.succeeded', data: { object: { id: 'pay_1' } } });
    const header = signatureHeader(secret, payload, signedAt);
    const now = at(signedAt + 5);
    expect(parseWebhookEvent({ payload, header, secret, now })).toMatchObject({ type: 'payment.succeeded' });
    expect(parseWebhookEvent({ payload: new TextEncoder().encode(payload), header, secret, now }).id).toBe('evt_1');
    expect(() => parseWebhookEvent({ payload: `${payload} `, header, secret, now })).toThrow(WebhookSignatureError);
    expect(() => parseWebhookEvent({ payload, header: null, secret, now })).toThrow(WebhookSignatureError);
  });
});
