import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { foldPaymentStats } from '../../src/payments/paymentStatsFold.ts';
import { createMerchant } from '../support/fixtures.ts';
import { newPartner, startTestServer, type TestServer } from '../support/testServer.ts';

describe('folding payment statistics', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  it('runs one fold at a time across connections: a fold waits for the running one, then folds what is left, exactly once', async () => {
    const partner = await newPartner(server.db);
    const merchantId = (await createMerchant(server, partner.apiKey)).id;
    await sql`
      INSERT INTO payments (id, partner_id, merchant_id, reference_id, status, fiat_currency, fiat_value, expires_at, created_at, updated_at)
      SELECT 'pay_fold' || ${merchantId} || g, ${partner.partnerId}, ${merchantId}, 'fold-' || g, 'expired', 'USD', 100 + g,
        now() - interval '1 day', now() - g * interval '1 hour', now()
      FROM generate_series(1, 300) AS g
    `.execute(server.db);

    // Another process's fold, holding the lock, is played by a connection of our own.
    const holder = new pg.Client({ connectionString: inject('databaseUrl') });
    await holder.connect();
    let blocked = false;
    let waiting: Promise<number>;
    try {
      await holder.query('BEGIN');
      await holder.query("SELECT pg_advisory_xact_lock(hashtext('paygate:fold_payment_stats'))");
      waiting = foldPaymentStats(server.db);
      for (let attempt = 0; attempt < 200 && !blocked; attempt++) {
        const { rows } = await holder.query<{ blocked: boolean }>(
          'SELECT EXISTS (SELECT 1 FROM pg_stat_activity WHERE pg_backend_pid() = ANY (pg_blocking_pids(pid))) AS blocked',
        );
        blocked = rows[0]?.blocked ?? false;
        if (!blocked) await new Promise((resolve) => setTimeout(resolve, 25));
      }
      await holder.query('COMMIT');
    } finally {
      await holder.end();
    }
    expect(blocked).toBe(true);
    expect(await waiting).toBeGreaterThanOrEqual(300);

    const [daily] = (
      await sql<{ payments: string; total: string }>`
        SELECT sum(payments) AS payments, sum(fiat_total) AS total FROM payment_daily_stats WHERE merchant_id = ${merchantId}
      `.execute(server.db)
    ).rows;
    const [pending] = (
      await sql<{ count: string }>`SELECT count(*) FROM payment_stats_deltas WHERE merchant_id = ${merchantId}`.execute(
        server.db,
      )
    ).rows;
    expect([daily?.payments, daily?.total, pending?.count]).toEqual(['300', String(300 * 100 + (300 * 301) / 2), '0']);
  });
});
