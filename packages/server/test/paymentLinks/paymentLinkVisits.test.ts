import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChainRegistry } from '../../src/chains/registry.ts';
import { changePaymentStatus } from '../../src/payments/transitions.ts';
import { LISTED_NETWORKS } from '../dashboard/support/dashboardSession.ts';
import { BASE_ACCOUNT, BASE_USDC, createMerchant } from '../support/fixtures.ts';
import { call, newPartner, startTestServer, type TestPartner, type TestServer } from '../support/testServer.ts';

const FIXED = { amount: { unit: 'iso4217/USD', value: '1250' }, description: 'Coffee beans, 1 kg' };

/** What a browser sends when the buyer submits the page's form. */
function form(fields: Record<string, string>): { rawBody: string; headers: Record<string, string> } {
  return {
    rawBody: new URLSearchParams(fields).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  };
}

/** The hidden `visit` field of a page's form. */
function visitOf(page: string): string {
  const match = /name="visit" value="([A-Za-z0-9_-]+)"/.exec(page);
  if (!match) throw new Error(`no visit field in the page: ${page.slice(0, 300)}`);
  return match[1]!;
}

describe('payment links: the public page makes one payment per visit', () => {
  let server: TestServer;
  let partner: TestPartner;
  let merchantId: string;
  const headers = () => ({ 'api-key': partner.apiKey, 'merchant-id': merchantId });
  const transition = () => ({ db: server.db, chains: server.ctx.chains, baseUrl: server.url, now: new Date() });

  async function newLink(body: object = FIXED): Promise<{ id: string; url: string }> {
    const created = await call(server, '/v1/payment-links', { method: 'POST', headers: headers(), body });
    if (created.status !== 201) throw new Error(`link not created: ${created.text}`);
    return created.body;
  }

  /** Opens the page and submits its form with `fields`, as a browser would; redirects are not followed. */
  async function visit(linkId: string, fields: Record<string, string> = {}) {
    const page = await call(server, `/l/${linkId}`);
    return submit(linkId, { visit: visitOf(page.text), ...fields });
  }

  /** The form as a page opened earlier submits it. */
  async function submit(linkId: string, fields: Record<string, string>) {
    const submitted = await fetch(`${server.url}/l/${linkId}`, {
      method: 'POST',
      redirect: 'manual',
      body: form(fields).rawBody,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    return { status: submitted.status, location: submitted.headers.get('location'), text: await submitted.text() };
  }
  const openedEarlier = () => randomBytes(16).toString('base64url');

  const paymentIdOf = (location: string | null) => location?.split('/').at(-1) ?? '';
  const paymentsOf = (linkId: string) =>
    server.db.selectFrom('payments').selectAll().where('payment_link_id', '=', linkId).execute();

  async function pay(paymentId: string) {
    await changePaymentStatus(transition(), paymentId, 'processing', {
      network: 'eip155:8453',
      token_asset: BASE_USDC,
      token_symbol: 'USDC',
      token_value: '12500000',
      tx_hash: `0x${randomBytes(32).toString('hex')}`,
      buyer_account: BASE_ACCOUNT,
    });
    await changePaymentStatus(transition(), paymentId, 'succeeded');
  }

  beforeAll(async () => {
    server = await startTestServer({ context: { chains: new ChainRegistry(LISTED_NETWORKS) } });
    partner = await newPartner(server.db);
    merchantId = (await createMerchant(server, partner.apiKey)).id;
  });
  afterAll(() => server.close());

  it('shows what is sold and its price without making a payment; the form makes one and leads to its checkout', async () => {
    const link = await newLink({ ...FIXED, quantity: { maximum: 3 } });
    const page = await call(server, `/l/${link.id}`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(page.text).toContain('Coffee beans, 1 kg');
    expect(page.text).toContain('$12.50');
    expect(page.text).toContain('<select id="quantity" name="quantity">');
    expect(page.headers.get('content-security-policy')).toContain("form-action 'self'");
    expect(await paymentsOf(link.id)).toEqual([]);

    const submitted = await visit(link.id, { quantity: '3' });
    expect(submitted.status).toBe(303);
    const paymentId = paymentIdOf(submitted.location);
    expect(submitted.location).toBe(`${server.url}/${paymentId}`);
    const payment = await call(server, `/v1/payments/${paymentId}`, { headers: headers() });
    expect(payment.body).toMatchObject({
      paymentId,
      source: 'payment_link',
      paymentLinkId: link.id,
      status: 'requires_action',
      fiatAmount: { unit: 'iso4217/USD', value: '3750' },
    });
    // The checkout it leads to is the payment's own.
    expect((await call(server, `/${paymentId}`)).status).toBe(200);
  });

  it('names the link and the source in the list, its filters, the CSV and the payment.created webhook event', async () => {
    const link = await newLink();
    const other = await newLink();
    const mine = paymentIdOf((await visit(link.id)).location);
    paymentIdOf((await visit(other.id)).location);
    const listed = await call(server, `/v1/payments?paymentLinkId=${link.id}`, { headers: headers() });
    expect(listed.body.data.map((item: { paymentId: string }) => item.paymentId)).toEqual([mine]);
    expect(listed.body.data[0].paymentLinkId).toBe(link.id);
    const idsOfSource = async (source: string) =>
      (await call(server, `/v1/payments?source=${source}&limit=100`, { headers: headers() })).body.data.map(
        (item: { paymentId: string }) => item.paymentId,
      );
    expect(await idsOfSource('payment_link')).toContain(mine);
    expect(await idsOfSource('api')).not.toContain(mine);
    const csv = await call(server, `/v1/payments/export?paymentLinkId=${link.id}`, { headers: headers() });
    const [header, row, ...rest] = csv.text.trim().split(/\r?\n/);
    expect(header!.split(',').at(-1)).toBe('paymentLinkId');
    expect(row!.split(',').slice(-2)).toEqual(['payment_link', link.id]);
    expect(rest).toEqual([]);
    const event = await server.db
      .selectFrom('webhook_events')
      .select('body')
      .where('type', '=', 'payment.created')
      .where('body', 'like', `%${mine}%`)
      .executeTakeFirstOrThrow();
    expect(JSON.parse(event.body).data.object).toMatchObject({
      paymentId: mine,
      source: 'payment_link',
      paymentLinkId: link.id,
    });
  });

  it('makes 200 distinct payments of 200 visits at once, none shared, none lost', async () => {
    const link = await newLink();
    const pages = await Promise.all(Array.from({ length: 200 }, () => call(server, `/l/${link.id}`)));
    const answers = await Promise.all(
      pages.map((page) =>
        fetch(`${server.url}/l/${link.id}`, {
          method: 'POST',
          redirect: 'manual',
          body: form({ visit: visitOf(page.text) }).rawBody,
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
        }),
      ),
    );
    expect(answers.map((answer) => answer.status)).toEqual(Array(200).fill(303));
    const ids = answers.map((answer) => paymentIdOf(answer.headers.get('location')));
    expect(new Set(ids).size).toBe(200);
    expect((await paymentsOf(link.id)).map((payment) => payment.id).sort()).toEqual([...ids].sort());
  });

  it('gives the same page submitted twice the same payment; with another amount it says so and makes none', async () => {
    const link = await newLink({
      customAmount: { unit: 'iso4217/USD', minimum: '100', maximum: '10000' },
      description: 'Pay what you like',
    });
    const page = await call(server, `/l/${link.id}`);
    const visitId = visitOf(page.text);
    const post = (amount: string) =>
      fetch(`${server.url}/l/${link.id}`, {
        method: 'POST',
        redirect: 'manual',
        body: form({ visit: visitId, amount }).rawBody,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
    const [first, second] = await Promise.all([post('25.00'), post('25')]);
    expect([first.status, second.status]).toEqual([303, 303]);
    expect(first.headers.get('location')).toBe(second.headers.get('location'));
    const changed = await post('30');
    expect(changed.status).toBe(409);
    expect(await changed.text()).toContain('This page was already sent with another amount.');
    expect(await paymentsOf(link.id)).toHaveLength(1);
    expect((await paymentsOf(link.id))[0]!.fiat_value).toBe('2500');
  });

  it("takes the buyer's amount within the bounds, typed with a point or a comma; refuses it outside them, missing or not a number", async () => {
    const link = await newLink({
      customAmount: { unit: 'iso4217/EUR', minimum: '500', maximum: '2000', preset: '1000' },
      description: 'Tip the band',
    });
    const page = await call(server, `/l/${link.id}`, { headers: { 'accept-language': 'de-DE' } });
    expect(page.text).toContain('value="10.00"');
    expect(page.text).toContain('Von 5,00\u00a0€ bis 20,00\u00a0€.');
    for (const [amount, message] of [
      ['4.99', 'The amount must be at least €5.00.'],
      ['20.01', 'The amount must be at most €20.00.'],
      ['', 'Enter an amount.'],
      ['ten', 'Enter the amount as a number, for example 10.00.'],
      ['1,000.00', 'Enter the amount as a number, for example 10.00.'],
      ['5.001', 'Enter the amount as a number, for example 10.00.'],
    ]) {
      const refused = await visit(link.id, { amount: amount! });
      expect([refused.status, refused.text.includes(message!)], amount).toEqual([400, true]);
      expect(refused.text).toContain('aria-invalid="true"');
    }
    expect(await paymentsOf(link.id)).toEqual([]);
    const comma = await visit(link.id, { amount: '12,5' });
    expect(comma.status).toBe(303);
    expect((await paymentsOf(link.id)).map((payment) => payment.fiat_value)).toEqual(['1250']);
  });

  it('refuses a quantity the link does not allow', async () => {
    const link = await newLink({ ...FIXED, quantity: { maximum: 2 } });
    for (const quantity of ['0', '3', 'two']) {
      const refused = await visit(link.id, { quantity });
      expect(refused.status, quantity).toBe(quantity === 'two' ? 303 : 400);
    }
    // A quantity that is no number is none chosen: one item.
    expect((await paymentsOf(link.id)).map((payment) => payment.fiat_value)).toEqual(['1250']);
  });

  it('makes exactly as many payments as uses are left under 50 visits at once; unpaid ones give theirs back; paid ones spend the link', async () => {
    const link = await newLink({ ...FIXED, maxUses: 10 });
    const pages = await Promise.all(Array.from({ length: 50 }, () => call(server, `/l/${link.id}`)));
    const answers = await Promise.all(
      pages.map((page) =>
        fetch(`${server.url}/l/${link.id}`, {
          method: 'POST',
          redirect: 'manual',
          body: form({ visit: visitOf(page.text) }).rawBody,
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
        }),
      ),
    );
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.filter((status) => status === 303)).toHaveLength(10);
    expect(statuses.filter((status) => status === 409)).toHaveLength(40);
    const refusedPage = await answers.find((answer) => answer.status === 409)!.text();
    expect(refusedPage).toContain('All taken for now');
    const made = await paymentsOf(link.id);
    expect(made).toHaveLength(10);
    expect((await call(server, `/v1/payment-links/${link.id}`, { headers: headers() })).body).toMatchObject({
      uses: 10,
      status: 'active',
    });
    expect((await call(server, `/l/${link.id}`)).status).toBe(409);

    // Two cancelled unpaid payments free their uses; the others are paid.
    for (const payment of made.slice(0, 2)) {
      await call(server, `/v1/payments/${payment.id}/cancel`, { method: 'POST', headers: headers() });
    }
    for (const payment of made.slice(2)) await pay(payment.id);
    const again = [await visit(link.id), await visit(link.id)];
    expect(again.map((answer) => answer.status)).toEqual([303, 303]);
    expect((await submit(link.id, { visit: openedEarlier() })).status).toBe(409);
    for (const answer of again) await pay(paymentIdOf(answer.location));
    const spent = await call(server, `/l/${link.id}`);
    expect(spent.status).toBe(410);
    expect(spent.text).toContain('This link is used up');
    const read = await call(server, `/v1/payment-links/${link.id}`, { headers: headers() });
    expect(read.body).toMatchObject({ status: 'spent', uses: 10 });
    expect((await paymentsOf(link.id)).filter((payment) => payment.status === 'succeeded')).toHaveLength(10);
    expect((await submit(link.id, { visit: openedEarlier() })).status).toBe(410);
  });

  it('says a deactivated, ended or unknown link takes no payment, and makes none', async () => {
    const off = await newLink();
    const page = await call(server, `/l/${off.id}`);
    await call(server, `/v1/payment-links/${off.id}/deactivate`, { method: 'POST', headers: headers() });
    const closed = await call(server, `/l/${off.id}`);
    expect([closed.status, closed.text.includes('This link takes no payments')]).toEqual([410, true]);
    // A page opened before the link was turned off makes nothing either.
    const late = await fetch(`${server.url}/l/${off.id}`, {
      method: 'POST',
      redirect: 'manual',
      body: form({ visit: visitOf(page.text) }).rawBody,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(late.status).toBe(410);
    expect(await paymentsOf(off.id)).toEqual([]);

    const ended = await newLink({ ...FIXED, expiresAt: Math.floor(Date.now() / 1000) + 60 });
    await server.db
      .updateTable('payment_links')
      .set({ expires_at: new Date(Date.now() - 1000) })
      .where('id', '=', ended.id)
      .execute();
    const endedPage = await call(server, `/l/${ended.id}`, { headers: { 'accept-language': 'ja' } });
    expect([endedPage.status, endedPage.text.includes('このリンクは終了しました')]).toEqual([410, true]);
    expect(await paymentsOf(ended.id)).toEqual([]);

    for (const unknown of ['plink_01JZZZZZZZZZZZZZZZZZZZZZZZ', 'plink_x', '..%2F..%2Fetc']) {
      const missing = await call(server, `/l/${unknown}`);
      expect([missing.status, missing.text.includes('Payment link not found')], unknown).toEqual([404, true]);
    }
  });

  it('has stats equal to those of the payments list filtered by the link', async () => {
    const link = await newLink({
      customAmount: { unit: 'iso4217/USD', minimum: '100', maximum: '100000' },
      description: 'Donation',
    });
    const paid: string[] = [];
    for (const amount of ['10', '20.5', '7']) {
      const submitted = await visit(link.id, { amount });
      paid.push(paymentIdOf(submitted.location));
    }
    await pay(paid[0]!);
    await pay(paid[1]!);
    const read = await call(server, `/v1/payment-links/${link.id}`, { headers: headers() });
    const listed = await call(server, `/v1/payments?paymentLinkId=${link.id}`, { headers: headers() });
    expect(read.body.stats).toEqual(listed.body.stats);
    expect(read.body.stats).toMatchObject({
      totalTransactions: 3,
      totalRevenue: [{ currency: 'USD', amount: 30.5 }],
    });
    const counts = await call(server, `/v1/payments/status-counts?paymentLinkId=${link.id}`, { headers: headers() });
    expect(counts.body.data).toEqual(
      expect.arrayContaining([
        { status: 'succeeded', payments: 2 },
        { status: 'requires_action', payments: 1 },
      ]),
    );
  });
});
