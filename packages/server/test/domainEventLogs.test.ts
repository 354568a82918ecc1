import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { afterCommit } from '../src/db/afterCommit.ts';
import { connect, type Db } from '../src/db/database.ts';
import { createMerchant, createPayment } from './support/fixtures.ts';
import { runCli, type ServerProcess, startServerProcess } from './support/serverProcess.ts';
import { call } from './support/testServer.ts';

type LogLine = Record<string, unknown> & { level: number; msg?: string };

function jsonLines(stdout: string): LogLine[] {
  return stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as LogLine);
}

const REQUEST_LINES = ['incoming request', 'request completed'];
const MERCHANT_EMAIL = 'owner@logged-shop.example';

/**
 * `paygate start` at the default log level: a payment created and cancelled over HTTP writes one `info` line per
 * domain event, with ids and amounts and no buyer or merchant data, and no line per request unless
 * LOG_REQUESTS=true.
 */
describe('domain event logs of a running service', () => {
  const env = () => ({ DATABASE_URL: inject('databaseUrl'), DEMO_PARTNER: 'never', LOG_LEVEL: '' });
  const running: ServerProcess[] = [];

  afterAll(async () => {
    for (const server of running) await server.stop();
  });

  async function partnerKey(): Promise<{ partnerId: string; apiKey: string }> {
    const created = await runCli(['partner', 'create', '--name', 'Logged partner'], {
      DATABASE_URL: inject('databaseUrl'),
    });
    expect(created.code, created.stderr).toBe(0);
    return JSON.parse(created.stdout);
  }

  async function createAndCancel(server: ServerProcess, apiKey: string) {
    const merchant = await createMerchant(server, apiKey, {
      merchantName: 'Logged Shop',
      merchantEmail: MERCHANT_EMAIL,
    });
    const payment = await createPayment(server, apiKey, merchant.id, {
      amount: { unit: 'iso4217/USD', value: '1250' },
    });
    const cancelled = await call(server, `/v1/payments/${payment.paymentId}/cancel`, {
      method: 'POST',
      headers: { 'api-key': apiKey, 'merchant-id': merchant.id },
      body: {},
    });
    expect(cancelled.status, cancelled.text).toBe(200);
    await server.waitForOutput(new RegExp(`"event":"payment.cancelled"[^\\n]*"paymentId":"${payment.paymentId}"`));
    return { merchantId: merchant.id, paymentId: payment.paymentId };
  }

  it('writes payment.created and payment.cancelled at info, and no request lines', async () => {
    const server = await startServerProcess(env());
    running.push(server);
    const { partnerId, apiKey } = await partnerKey();
    const { merchantId, paymentId } = await createAndCancel(server, apiKey);

    const lines = jsonLines(server.stdout());
    const events = lines.filter((line) => line.event !== undefined && line.paymentId === paymentId);
    expect(events.map((line) => [line.event, line.level, line.msg])).toEqual([
      ['payment.created', 30, 'payment.created'],
      ['payment.cancelled', 30, 'payment.cancelled'],
    ]);
    expect(events[0]).toMatchObject({
      component: 'events',
      paymentId,
      merchantId,
      partnerId,
      amount: '1250',
      currency: 'USD',
    });
    expect(lines.filter((line) => REQUEST_LINES.includes(line.msg ?? ''))).toEqual([]);
    expect(server.stdout()).not.toContain(MERCHANT_EMAIL);
    expect(server.stdout()).not.toContain(apiKey);
  });

  it('writes the request lines at info with LOG_REQUESTS=true', async () => {
    const server = await startServerProcess({ ...env(), LOG_REQUESTS: 'true' });
    running.push(server);
    const { apiKey } = await partnerKey();
    const { paymentId } = await createAndCancel(server, apiKey);
    // A request's completed line follows its answer: the three requests' lines may come after the cancel's event.
    await server.waitForOutput(/("msg":"request completed"[^\n]*\n[\s\S]*){3}/);
    const lines = jsonLines(server.stdout());
    const completed = lines.filter((line) => line.msg === 'request completed');
    expect(completed.length).toBeGreaterThanOrEqual(3);
    expect(completed.every((line) => line.level === 30)).toBe(true);
    expect(lines.some((line) => line.event === 'payment.cancelled' && line.paymentId === paymentId)).toBe(true);
    // Credentials stay out of request lines too.
    expect(server.stdout()).not.toContain(apiKey);
  });
});

describe('afterCommit', () => {
  let db: Db;

  beforeAll(() => {
    db = connect(inject('databaseUrl'), 2);
  });
  afterAll(() => db.destroy());

  it('runs queued work when the transaction commits, never when it rolls back, at once outside one', async () => {
    const ran: string[] = [];
    await db.transaction().execute(async (trx) => {
      await afterCommit(trx, () => ran.push('committed'));
      await trx.selectNoFrom((eb) => eb.val(1).as('one')).execute();
      expect(ran).toEqual([]);
    });
    expect(ran).toEqual(['committed']);

    await expect(
      db.transaction().execute(async (trx) => {
        await afterCommit(trx, () => ran.push('rolled back'));
        throw new Error('abandoned');
      }),
    ).rejects.toThrow('abandoned');
    // The connection's next transaction does not inherit what the rolled-back one queued.
    await db.transaction().execute(async (trx) => {
      await afterCommit(trx, () => ran.push('next'));
    });
    expect(ran).toEqual(['committed', 'next']);

    await afterCommit(db, () => ran.push('no transaction'));
    expect(ran).toEqual(['committed', 'next', 'no transaction']);
  });
});
