import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMerchant, createPayment } from '../support/fixtures.ts';
import {
  call,
  expectErrorBody,
  newPartner,
  startTestServer,
  type TestPartner,
  type TestServer,
} from '../support/testServer.ts';

describe('checkout pages under a CHECKOUT_URL with a path', () => {
  let server: TestServer;
  let partner: TestPartner;
  let merchantId: string;

  beforeAll(async () => {
    server = await startTestServer({ env: { CHECKOUT_URL: 'http://127.0.0.1:1/pay' } });
    // The test server learns its port only once listening; links then name it.
    server.ctx.config.checkoutUrl = `${server.url}/pay`;
    partner = await newPartner(server.db);
    merchantId = (await createMerchant(server, partner.apiKey)).id;
  });
  afterAll(() => server?.close());

  it('serves the page at {checkout_url}/<id> and {checkout_url}/?pid=<id>, with its assets under the same path', async () => {
    const { paymentId, gatewayUrl } = await createPayment(server, partner.apiKey, merchantId);
    expect(gatewayUrl).toBe(`${server.url}/pay/${paymentId}`);
    for (const path of [`/pay/${paymentId}`, `/pay/?pid=${paymentId}`, `/pay?pid=${paymentId}`]) {
      const page = await call(server, path);
      expect(page.status, path).toBe(200);
      expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(page.headers.get('cache-control')).toBe('no-store');
      expect(page.text).toContain(`href="${gatewayUrl}"`);
    }
    const page = await call(server, `/pay/${paymentId}`);
    // The page itself is compressed for a browser that takes it, as its assets are.
    for (const [accepted, sent] of [
      ['br', 'br'],
      ['gzip, deflate', 'gzip'],
      ['identity', null],
    ]) {
      const served = await call(server, `/pay/${paymentId}`, { headers: { 'accept-encoding': accepted! } });
      expect([served.status, served.headers.get('content-encoding'), served.headers.get('vary')], accepted!).toEqual([
        200,
        sent,
        'accept-encoding',
      ]);
      expect(served.text).toContain(`<main class="checkout" id="checkout" data-payment-id="${paymentId}"`);
    }
    const script = /<script src="(\/pay\/assets\/checkout\/checkout\.[0-9a-f]{16}\.js)" defer><\/script>/.exec(
      page.text,
    )?.[1];
    const style = /<link rel="stylesheet" href="(\/pay\/assets\/checkout\/checkout\.[0-9a-f]{16}\.css)">/.exec(
      page.text,
    )?.[1];
    expect(script && style).toBeTruthy();
    for (const [path, type] of [
      [script!, 'text/javascript; charset=utf-8'],
      [style!, 'text/css; charset=utf-8'],
    ]) {
      const asset = await call(server, path!);
      expect(asset.status).toBe(200);
      expect(asset.headers.get('content-type')).toBe(type);
      expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(asset.text.length).toBeGreaterThan(1000);
      // Compressed for a browser that takes it; fetch gives the text back decompressed.
      for (const [accepted, sent] of [
        ['br', 'br'],
        ['gzip, deflate', 'gzip'],
        ['identity', null],
      ]) {
        const served = await call(server, path!, { headers: { 'accept-encoding': accepted! } });
        expect([served.headers.get('content-encoding'), served.headers.get('vary')], accepted!).toEqual([
          sent,
          'accept-encoding',
        ]);
        expect(served.text).toBe(asset.text);
      }
    }
  });

  it('answers unknown or malformed ids with the 404 page and never a 500; other paths keep the API 404', async () => {
    for (const path of [
      '/pay/pay_01JZZZZZZZZZZZZZZZZZZZZZZZ',
      '/pay/?pid=pay_x&pid=pay_y',
      '/pay/?pid=%00',
      '/pay/',
      `/pay/?pid=${'x'.repeat(5000)}`,
    ]) {
      const page = await call(server, path);
      expect(page.status, path).toBe(404);
      expect(page.text).toContain('<h1>Payment not found</h1>');
    }
    const { paymentId } = await createPayment(server, partner.apiKey, merchantId);
    for (const path of [`/${paymentId}`, '/pay/assets/checkout/checkout.0000000000000000.js', '/pay/not-a-payment']) {
      const result = await call(server, path);
      expect([result.status, expectErrorBody(result).code], path).toEqual([404, 'not_found']);
    }
  });
});
