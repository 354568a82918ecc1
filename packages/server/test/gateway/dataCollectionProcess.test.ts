import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { connect, type Db } from '../../src/db/database.ts';
import { readBuyerData } from '../../src/gateway/dataCollection/buyerData.ts';
import { DataEncryptionKey } from '../../src/dataEncryptionKey.ts';
import { createMerchant, createPayment } from '../support/fixtures.ts';
import { runCli, type ServerProcess, startServerProcess } from '../support/serverProcess.ts';
import { call, expectErrorBody } from '../support/testServer.ts';

// An account on a chain the service does not accept: options answer without asking any chain.
const UNSUPPORTED_ACCOUNT = 'eip155:999999:0x1111111111111111111111111111111111111111';

describe('buyer data collection in a paygate process', () => {
  const keyHex = randomBytes(32).toString('hex');
  const env = () => ({ DATABASE_URL: inject('databaseUrl') });
  let server: ServerProcess;
  let db: Db;

  beforeAll(async () => {
    server = await startServerProcess({
      ...env(),
      DATA_ENCRYPTION_KEY: keyHex,
      LOG_LEVEL: 'info',
      // The request lines, whose URLs must not show the form's token.
      LOG_REQUESTS: 'true',
      DEMO_PARTNER: 'never',
    });
    db = connect(inject('databaseUrl'), 2);
  });
  afterAll(async () => {
    await server?.stop();
    await db?.destroy();
  });

  it('takes the key from DATA_ENCRYPTION_KEY, stores the form encrypted with it, and logs neither the key nor the data', async () => {
    const partner = JSON.parse((await runCli(['partner', 'create', '--name', 'Process data partner'], env())).stdout);
    expect((await runCli(['partner', 'set-data-threshold', partner.partnerId, '0'], env())).code).toBe(0);
    const merchant = await createMerchant(server, partner.apiKey);
    const { paymentId } = await createPayment(server, partner.apiKey, merchant.id);

    const options = await call(server, `/v1/gateway/payment/${paymentId}/options`, {
      method: 'POST',
      headers: { 'api-key': partner.apiKey },
      body: { accounts: [UNSUPPORTED_ACCOUNT] },
    });
    expect(options.status, options.text).toBe(200);
    expect(options.body.options).toEqual([]);
    // The link names CHECKOUT_URL (here http://localhost:<port>); it is fetched on the address the process listens on.
    const link = new URL(options.body.collectData.url);
    expect(link.origin).toBe(`http://localhost:${new URL(server.url).port}`);
    expect(link.pathname).toMatch(/^\/collect\/[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
    const url = `${server.url}${link.pathname}`;

    const page = await fetch(url);
    expect(page.status).toBe(200);
    const posted = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        fullName: 'Grace Hopper',
        dateOfBirth: '1906-12-09',
        placeOfBirth: 'New York',
        termsAccepted: 'on',
      }),
    });
    expect(posted.status).toBe(200);

    const key = DataEncryptionKey.parse(keyHex, 'test key');
    expect(await readBuyerData(db, key, paymentId, '*')).toEqual({
      fullName: 'Grace Hopper',
      dateOfBirth: '1906-12-09',
      placeOfBirth: 'New York',
      termsAccepted: true,
    });
    // The requests were logged; what was in them was not.
    await server.waitForOutput(/"url":"\/collect\//);
    for (const secret of ['Grace', 'Hopper', '1906-12-09', keyHex, Buffer.from(keyHex, 'hex').toString('base64')]) {
      expect(server.output()).not.toContain(secret);
    }
  }, 120_000);

  it('refuses options that need buyer data when no key is configured', async () => {
    const keyless = await startServerProcess({ ...env(), DEMO_PARTNER: 'never' });
    try {
      const partner = JSON.parse((await runCli(['partner', 'create', '--name', 'Keyless partner'], env())).stdout);
      await runCli(['partner', 'set-data-threshold', partner.partnerId, 'USD:0'], env());
      const merchant = await createMerchant(keyless, partner.apiKey);
      const { paymentId } = await createPayment(keyless, partner.apiKey, merchant.id);
      const options = await call(keyless, `/v1/gateway/payment/${paymentId}/options`, {
        method: 'POST',
        headers: { 'api-key': partner.apiKey },
        body: { accounts: [UNSUPPORTED_ACCOUNT] },
      });
      expect([options.status, expectErrorBody(options).code]).toEqual([503, 'service_unavailable']);
    } finally {
      await keyless.stop();
    }
  }, 120_000);
});
