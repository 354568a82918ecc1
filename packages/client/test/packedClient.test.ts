import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebhookTasks } from '../../server/src/webhooks/tasks.ts';
import { signatureHeader } from '../src/webhooks.ts';
import { createIsolatedDatabase } from '../../server/test/support/isolatedDatabase.ts';
import { createTestCertificate } from '../../server/test/support/logoServer.ts';
import {
  newPartner,
  startTestServer,
  type TestPartner,
  type TestServer,
} from '../../server/test/support/testServer.ts';
import { startWebhookReceiver, type WebhookReceiver, waitFor } from '../../server/test/webhooks/support.ts';
import { type PackedInstall, packAndInstall } from '../../wallet/test/support/packedInstall.ts';

const CLIENT_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/**
 * A partner's backend using the installed package: registers a webhook endpoint, creates a merchant (whose first
 * answer is lost on the way back, as on a connection reset after the service acted) and a payment of it.
 */
const PARTNER_SCRIPT = `
import { createPaygateClient } from '@paygate/client';

const { baseUrl, apiKey, webhookUrl } = JSON.parse(process.argv[2]);
let lostAnswers = 0;
const client = createPaygateClient({
  baseUrl,
  apiKey,
  retry: { initialDelayMs: 50 },
  fetch: async (request) => {
    const response = await fetch(request);
    if (lostAnswers === 0 && request.method === 'POST' && new URL(request.url).pathname === '/v1/merchants') {
      lostAnswers++;
      throw new TypeError('fetch failed: connection reset');
    }
    return response;
  },
});
const hook = await client.POST('/v1/webhooks', { body: { url: webhookUrl, events: ['payment.created'] } });
const merchant = await client.POST('/v1/merchants', {
  body: { merchantName: 'Packed Shop', merchantEmail: 'owner@packed-shop.com' },
});
const payment = await client.POST('/v1/payments', {
  params: { header: { 'merchant-id': merchant.data.merchant.id } },
  body: { amount: { unit: 'iso4217/USD', value: '1250' }, referenceId: 'order-packed-1' },
});
const listed = await client.GET('/v1/merchants', { params: { query: { search: 'Packed Shop' } } });
const refused = await client.POST('/v1/merchants', { body: { merchantName: 'No Email' } });
console.log(JSON.stringify({
  lostAnswers,
  hook: { status: hook.response.status, data: hook.data },
  merchant: { status: merchant.response.status, data: merchant.data },
  payment: { status: payment.response.status, data: payment.data },
  listed: listed.data,
  refused: { status: refused.response.status, error: refused.error },
}));
`;

/** A partner's webhook receiver checking a delivery with the installed package. */
const VERIFY_SCRIPT = `
import { parseWebhookEvent, verifyWebhookSignature, WebhookSignatureError } from '@paygate/client';

const { payload, header, secret, now } = JSON.parse(process.argv[2]);
const at = now === undefined ? {} : { now: new Date(now) };
let refusedAltered = false;
try {
  parseWebhookEvent({ payload: payload.replace('"payment.', '"merchant.'), header, secret, ...at });
} catch (error) {
  refusedAltered = error instanceof WebhookSignatureError;
}
const valid = verifyWebhookSignature({ payload, header, secret, ...at });
console.log(JSON.stringify({
  valid,
  validAsBytes: verifyWebhookSignature({ payload: new TextEncoder().encode(payload), header, secret, ...at }),
  wrongSecret: verifyWebhookSignature({ payload, header, secret: secret + 'x', ...at }),
  event: valid ? parseWebhookEvent({ payload, header, secret, ...at }) : null,
  refusedAltered,
}));
`;

/** Uses the installed package's types the way a TypeScript backend would; the misuses must not compile. */
const CONSUMER_TS = `
import { createPaygateClient, verifyWebhookSignature, type WebhookEvent } from '@paygate/client';

const client = createPaygateClient({ baseUrl: 'https://pay.example.com', apiKey: 'sk_1', retry: { retries: 2 } });
export async function createMerchant(): Promise<string | undefined> {
  const { data, error } = await client.POST('/v1/merchants', {
    body: { merchantName: 'Corner Shop', merchantEmail: 'owner@corner-shop.com' },
  });
  if (error) throw new Error(error.message);
  // @ts-expect-error merchantEmail is required
  await client.POST('/v1/merchants', { body: { merchantName: 'Corner Shop' } });
  // @ts-expect-error the API has no such path
  await client.GET('/v1/nothing');
  return data?.merchant.id;
}
export const verified: boolean = verifyWebhookSignature({ payload: '{}', header: 't=1,v1=00', secret: 'whsec_1' });
export const eventType: WebhookEvent['type'] = 'payment.succeeded';
// @ts-expect-error not an event type
export const unknownType: WebhookEvent['type'] = 'payment.teleported';
`;

let installed: PackedInstall;
let database: Awaited<ReturnType<typeof createIsolatedDatabase>>;
let receiver: WebhookReceiver;
let server: TestServer;
let partner: TestPartner;

beforeAll(async () => {
  const packing = packAndInstall(CLIENT_DIR, {
    'partner.mjs': PARTNER_SCRIPT,
    'verify.mjs': VERIFY_SCRIPT,
    'consumer.ts': CONSUMER_TS,
  });
  const certificate = await createTestCertificate();
  database = await createIsolatedDatabase();
  receiver = await startWebhookReceiver(certificate);
  server = await startTestServer({
    databaseUrl: database.url,
    context: {
      webhookDelivery: {
        allowPrivateHosts: true,
        extraCaCertificates: [certificate.cert],
        timeoutMs: 2_000,
        retry: { firstDelayMs: 100, maxDelayMs: 400, giveUpAfterMs: 5_000, jitter: 0.2 },
      },
    },
    tasks: (ctx) => createWebhookTasks(ctx),
  });
  partner = await newPartner(server.db);
  installed = await packing;
}, 300_000);

afterAll(async () => {
  await server?.close();
  await receiver?.close();
  await database?.drop();
  await installed?.remove();
});

describe('the packed @paygate/client', () => {
  it('ships the build only and depends on openapi-fetch alone', () => {
    // No script is left for the installing project to approve or refuse (npm 11 warns of a `prepare`).
    expect(installed.installWarnings).toEqual([]);
    expect(installed.packedFiles).toContain('dist/index.js');
    expect(installed.packedFiles).toContain('dist/index.d.ts');
    expect(installed.packedFiles).toContain('dist/generated/openapi.d.ts');
    for (const file of installed.packedFiles) expect(file).toMatch(/^(dist\/.*\.(js|d\.ts)|package\.json|README\.md)$/);
  });

  it('type-checks a strict NodeNext TypeScript project against its declarations', async () => {
    const { ok, output } = await installed.typecheck();
    expect(output).toBe('');
    expect(ok).toBe(true);
  });

  let signingSecret: string;
  let paymentId: string;

  it('creates a merchant once although its first answer was lost, and a payment, against the running service', async () => {
    const run = JSON.parse(
      await installed.node('partner.mjs', [
        JSON.stringify({ baseUrl: server.url, apiKey: partner.apiKey, webhookUrl: receiver.urlFor('/hooks') }),
      ]),
    );
    expect(run.lostAnswers).toBe(1);
    expect(run.hook.status).toBe(201);
    expect(run.merchant).toMatchObject({ status: 201, data: { merchant: { name: 'Packed Shop' } } });
    expect(run.listed.data.map((merchant: { id: string }) => merchant.id)).toEqual([run.merchant.data.merchant.id]);
    expect(run.payment).toMatchObject({ status: 201, data: { paymentId: expect.stringMatching(/^pay_/) } });
    expect(run.refused).toMatchObject({ status: 400, error: { code: 'params_validation' } });
    signingSecret = run.hook.data.webhook.secret;
    paymentId = run.payment.data.paymentId;
  });

  it("verifies the signature of the service's real webhook delivery", async () => {
    const [delivery] = await waitFor('the payment.created delivery', () => {
      const received = receiver.received('/hooks');
      return received.length > 0 && received;
    });
    const header = String(delivery!.headers['pay-signature']);
    const checked = JSON.parse(
      await installed.node('verify.mjs', [JSON.stringify({ payload: delivery!.body, header, secret: signingSecret })]),
    );
    expect(checked).toMatchObject({ valid: true, validAsBytes: true, wrongSecret: false, refusedAltered: true });
    expect(checked.event).toMatchObject({ type: 'payment.created', data: { object: { paymentId } } });
  });

  it("verifies what the service's signing code signs, within the tolerance of the signed time only", async () => {
    const payload = JSON.stringify({ id: 'evt_1', type: 'payment.succeeded', data: { object: { id: 'pay_1' } } });
    const signedAt = 1_700_000_000;
    const header = signatureHeader('whsec_test', payload, signedAt);
    const verify = async (nowSeconds: number) =>
      JSON.parse(
        await installed.node('verify.mjs', [
          JSON.stringify({ payload, header, secret: 'whsec_test', now: nowSeconds * 1000 }),
        ]),
      ).valid;
    expect(await verify(signedAt + 299)).toBe(true);
    expect(await verify(signedAt - 299)).toBe(true);
    expect(await verify(signedAt + 301)).toBe(false);
  });
});
