import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startPgBouncer, type PgBouncer } from '../support/pgbouncer.ts';
import { runCli, type ServerProcess, startServerProcess } from '../support/serverProcess.ts';
import { call } from '../support/testServer.ts';

describe('behind PgBouncer in transaction mode', () => {
  let bouncer: PgBouncer;
  let server: ServerProcess;
  let apiKey: string;
  let merchantId: string;

  beforeAll(async () => {
    bouncer = await startPgBouncer(inject('databaseUrl'));
    server = await startServerProcess({
      DATABASE_URL: bouncer.url,
      DATABASE_SESSION_URL: inject('databaseUrl'),
      DATABASE_PREPARED_STATEMENTS: 'false',
      DEMO_PARTNER: 'never',
    });
    ({ apiKey } = JSON.parse(
      (await runCli(['partner', 'create', '--name', 'Pooled partner'], { DATABASE_URL: inject('databaseUrl') })).stdout,
    ));
    merchantId = (
      await call(server, '/v1/merchants', {
        method: 'POST',
        headers: { 'api-key': apiKey, 'idempotency-key': randomUUID() },
        body: { merchantName: 'Corner Shop', merchantEmail: 'owner@corner.shop' },
      })
    ).body.merchant.id;
  }, 90_000);

  afterAll(async () => {
    await server?.stop();
    await bouncer?.stop();
  });

  it('takes payments at once through the pooler, each exactly once, with idempotent retries and lists agreeing', async () => {
    const headers = { 'api-key': apiKey, 'merchant-id': merchantId };
    const before = Number(
      (await bouncer.admin('SHOW STATS')).find((row) => row.database !== 'pgbouncer')?.total_xact_count ?? 0,
    );
    const references = Array.from({ length: 40 }, () => `order-${randomUUID()}`);
    // Each create twice at once: the same reference is one payment.
    const created = await Promise.all(
      [...references, ...references].map((referenceId) =>
        call(server, '/v1/payments', {
          method: 'POST',
          headers,
          body: { amount: { unit: 'iso4217/USD', value: '1000' }, referenceId },
        }),
      ),
    );
    expect(created.every((answer) => answer.status === 200 || answer.status === 201)).toBe(true);
    expect(new Set(created.map((answer) => answer.body.paymentId)).size).toBe(40);
    const listed = await call(server, `/v1/payments?merchantId=${merchantId}&limit=100`, {
      headers: { 'api-key': apiKey },
    });
    expect(listed.body.data).toHaveLength(40);
    expect(listed.body.stats.totalTransactions).toBe(40);
    const after = Number(
      (await bouncer.admin('SHOW STATS')).find((row) => row.database !== 'pgbouncer')?.total_xact_count ?? 0,
    );
    // The requests' transactions went through the pooler.
    expect(after - before).toBeGreaterThanOrEqual(80);
  });

  it('wakes a status long-poll held through the pooler when another request cancels the payment (LISTEN on the direct connection)', async () => {
    const headers = { 'api-key': apiKey, 'merchant-id': merchantId };
    const { paymentId } = (
      await call(server, '/v1/payments', {
        method: 'POST',
        headers,
        body: { amount: { unit: 'iso4217/USD', value: '1000' }, referenceId: `order-${randomUUID()}` },
      })
    ).body;
    const held = call(server, `/v1/payments/${paymentId}/status?maxPollMs=25000`, { headers });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const cancelled = await call(server, `/v1/payments/${paymentId}/cancel`, { method: 'POST', headers });
    expect(cancelled.status).toBe(200);
    const answer = await Promise.race([held, new Promise((resolve) => setTimeout(resolve, 10_000, 'still held'))]);
    expect(answer).toMatchObject({ status: 200, body: { status: 'cancelled' } });
  });
});
