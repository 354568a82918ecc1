import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { startDevnet } from '@paygate/devnet';
import { GatewayClient } from '@paygate/wallet';
import { sql } from 'kysely';
import { generatePrivateKey } from 'viem/accounts';
import { describe, expect, it, onTestFinished } from 'vitest';
import {
  checkBuyers,
  checkSettlements,
  checkWebhooks,
  drain,
  FINAL,
  isDrained,
  makeBuyers,
  openShop,
  runBuyer,
  startReceiver,
} from '../../../../bench/chaos.ts';
import { ChaosFront } from '../../../../bench/chaosFront.ts';
import { collectorAddresses } from '../../src/chains/collectorKeys.ts';
import { networksFromDevnet } from '../../src/chains/devnetNetworks.ts';
import { connect, type Db } from '../../src/db/database.ts';
import { migrations } from '../../src/db/migrations/index.ts';
import { LATEST_RELEASE } from '../../src/db/migrations/released.ts';
import { recordFunding } from '../../src/ledger/funding.ts';
import { createIsolatedDatabase, isolatedTestDatabase } from '../support/isolatedDatabase.ts';
import { createTestCertificate } from '../support/logoServer.ts';
import { checkOutLatestRelease } from '../support/previousRelease.ts';
import { scrape } from '../support/prometheusText.ts';
import { call } from '../support/testServer.ts';
import { runCli, type ServerProcess, startServerProcess } from '../support/serverProcess.ts';

/**
 * Buyers of every method in each of three groups: the first pays while the release serves alone and the current
 * code starts beside it, the second while both serve and the release stops, the third once the current code serves
 * alone.
 */
const GROUP = 7;
const BUYERS = 3 * GROUP;
const NEWEST_MIGRATION = Object.keys(migrations).sort().at(-1);

/** Requests to the merchant and gateway APIs a process has answered, from its `/metrics`. */
async function apiRequests(server: ServerProcess): Promise<number> {
  const { samples } = await scrape(server);
  return samples
    .filter(
      (sample) => sample.name === 'http_request_duration_seconds_count' && sample.labels.route?.startsWith('/v1/'),
    )
    .reduce((sum, sample) => sum + sample.value, 0);
}

async function lastMigration(db: Db): Promise<string | undefined> {
  const { rows } = await sql<{ name: string }>`SELECT max(name) AS name FROM kysely_migration`.execute(db);
  return rows[0]?.name;
}

/** A payment made by a visit to a new payment link, on `server`. */
async function paymentOfLink(server: ServerProcess, apiKey: string, merchantId: string): Promise<string> {
  const link = await call(server, '/v1/payment-links', {
    method: 'POST',
    headers: { 'api-key': apiKey, 'merchant-id': merchantId },
    body: { amount: { unit: 'iso4217/USD', value: '1250' }, description: 'Coffee beans, 1 kg' },
  });
  expect(link.status, link.text).toBe(201);
  const page = await call(server, `/l/${link.body.id}`);
  const visit = /name="visit" value="([A-Za-z0-9_-]+)"/.exec(page.text)?.[1];
  const submitted = await fetch(`${server.url}/l/${link.body.id}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ visit: visit ?? '' }).toString(),
  });
  const paymentId = /pay_[A-Za-z0-9_-]+$/.exec(submitted.headers.get('location') ?? '')?.[0];
  if (submitted.status !== 303 || !paymentId) throw new Error(`the link's visit made no payment: ${submitted.status}`);
  return paymentId;
}

describe('rolling upgrade from the latest release', () => {
  it('runs the release and the current code on one database while payments flow: every payment final, none paid twice, every webhook delivered, each settled once, the audit balanced', async () => {
    const release = await checkOutLatestRelease();
    onTestFinished(() => release.remove());
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'paygate-upgrade-'));
    onTestFinished(() => fs.rm(dataDir, { recursive: true, force: true }));
    const devnet = await startDevnet({ dataDir: path.join(dataDir, 'devnet') });
    onTestFinished(() => devnet.stop());
    const database = await createIsolatedDatabase({ empty: true });
    onTestFinished(() => database.drop());
    const networks = networksFromDevnet(devnet.manifest);
    const chainsFile = path.join(dataDir, 'chains.json');
    await fs.writeFile(chainsFile, JSON.stringify(networks));
    const keys = { evmPrivateKey: generatePrivateKey(), solanaSeedHex: randomBytes(32).toString('hex') };
    const certificate = await createTestCertificate();
    const caFile = path.join(dataDir, 'receiver-ca.pem');
    await fs.writeFile(caFile, certificate.cert);
    const receiver = await startReceiver(certificate, 0);
    onTestFinished(() => receiver.close());
    // The load balancer: each request to a process it lists, at random.
    let live: string[] = [];
    const front = new ChaosFront(() => live);
    const frontUrl = await front.start();
    onTestFinished(() => front.stop());
    const env = {
      DATABASE_URL: database.url,
      DATA_DIR: path.join(dataDir, 'service'),
      CHAINS: chainsFile,
      PRICE_SOURCE: 'fixed',
      COLLECTOR_EVM_PRIVATE_KEY: keys.evmPrivateKey,
      COLLECTOR_SOLANA_SEED: keys.solanaSeedHex,
      DATA_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
      BASE_URL: frontUrl,
      DEMO_PARTNER: 'never',
      SETTLEMENT_INTERVAL_MS: '3000',
      WEBHOOK_ALLOW_PRIVATE_HOSTS: 'true',
      NODE_EXTRA_CA_CERTS: caFile,
    };

    const previous = await startServerProcess(env, [release.bin, 'start']);
    onTestFinished(async () => {
      await previous.stop();
    });
    const db = connect(database.url, 4);
    onTestFinished(() => db.destroy());
    expect(await lastMigration(db)).toBe(LATEST_RELEASE.lastMigration);
    const collector = await collectorAddresses(keys);
    await recordFunding(db, await devnet.fund({ evm: [collector.evm], solana: [collector.solana] }));
    const created = await runCli(['partner', 'create', '--name', 'Upgrade partner'], env);
    expect(created.code, created.stderr).toBe(0);
    const { apiKey } = JSON.parse(created.stdout) as { apiKey: string };
    live = [previous.url];
    const { merchantId, destinations } = await openShop(frontUrl, apiKey, networks, receiver.url);
    const shop = { devnet, db, frontUrl, apiKey, merchantId, destinations };
    const buyers = await makeBuyers(devnet, BUYERS);
    const pay = (group: typeof buyers) => Promise.all(group.map((buyer) => runBuyer(shop, buyer, { refundShare: 0 })));

    const alone = pay(buyers.slice(0, GROUP));
    // The current code migrates the database while the release serves the first buyers.
    const current = await startServerProcess(env);
    onTestFinished(async () => {
      await current.stop();
    });
    expect(await lastMigration(db)).toBe(NEWEST_MIGRATION);
    live = [previous.url, current.url];
    const [previousBefore, currentBefore] = await Promise.all([apiRequests(previous), apiRequests(current)]);
    const beside = pay(buyers.slice(GROUP, 2 * GROUP));

    // What only the current code makes, the release reads: a payment link's payment, in full and in the list.
    const linkPayment = await paymentOfLink(current, apiKey, merchantId);
    const asMerchant = { 'api-key': apiKey, 'merchant-id': merchantId };
    const readByCurrent = await call(current, `/v1/payments/${linkPayment}`, { headers: asMerchant });
    const readByPrevious = await call(previous, `/v1/payments/${linkPayment}`, { headers: asMerchant });
    const listedByPrevious = await call(previous, '/v1/payments?limit=100', { headers: asMerchant });
    // The current checkout follows a payment from the version it saw, which the release does not take.
    const gateway = (server: ServerProcess) => new GatewayClient({ baseUrl: server.url, auth: { apiKey } });
    const { version } = await gateway(current).getStatus(linkPayment);
    const followedOnPrevious = await gateway(previous).getStatus(linkPayment, { maxPollMs: 0, since: version });
    await gateway(previous).cancel(linkPayment);

    // The release's process stops once its first buyers are done, while the second group is still paying.
    const firstDone = await alone;
    const previousServed = (await apiRequests(previous)) - previousBefore;
    const currentServed = (await apiRequests(current)) - currentBefore;
    // As a load balancer drains a process: no new requests, its requests answered (a long-poll within 30 s), then
    // SIGTERM. A 0.1.0 process stopped while answering would hold its connection open and end only when forced.
    live = [current.url];
    const drainedAt = Date.now();
    while (front.inFlight.get(previous.url) && Date.now() - drainedAt < 40_000) await sleep(100);
    const previousExit = await previous.stop();
    const after = pay(buyers.slice(2 * GROUP));
    const done = [...firstDone, ...(await beside), ...(await after)];

    const drained = await drain(shop, { drainLimitMs: 240_000 });
    const report = {
      lost: [] as string[],
      chargedWrongly: [] as string[],
      settlements: { batches: 0, confirmed: 0, problems: [] as string[] },
      webhooks: { events: 0, deliveries: 0, received: 0, duplicates: 0, missing: [] as string[] },
    };
    await checkBuyers(shop, done, report);
    await checkSettlements(shop, report);
    await checkWebhooks({ ...shop, receiver }, report);
    const payments = await db
      .selectFrom('payments')
      .select(['id', 'status'])
      .where('merchant_id', '=', merchantId)
      .execute();
    const audit = await runCli(['audit'], env);

    const buyerErrors = done.flatMap((outcome) =>
      outcome.error ? [`buyer ${outcome.buyer.index}: ${outcome.error}`] : [],
    );
    const shown = JSON.stringify({ previousServed, currentServed, drained, report, payments, buyerErrors }, null, 1);
    expect(readByCurrent.body.source).toBe('payment_link');
    expect(readByPrevious.status, readByPrevious.text).toBe(200);
    expect(readByPrevious.body).toMatchObject({ paymentId: linkPayment, source: 'api' });
    expect(listedByPrevious.status, listedByPrevious.text).toBe(200);
    expect(listedByPrevious.body.data.map((item: { paymentId: string }) => item.paymentId)).toContain(linkPayment);
    expect(followedOnPrevious.status).toBe('requires_action');
    expect(previousServed, shown).toBeGreaterThan(0);
    expect(currentServed, shown).toBeGreaterThan(0);
    expect(previousExit, previous.output()).toBe(0);
    expect(buyerErrors, shown).toEqual([]);
    expect(isDrained(drained.left), shown).toBe(true);
    expect(payments, shown).toHaveLength(BUYERS + 1);
    expect(
      payments.filter((payment) => !FINAL.includes(payment.status as string)),
      shown,
    ).toEqual([]);
    expect(
      payments.filter((payment) => payment.status === 'succeeded'),
      shown,
    ).toHaveLength(BUYERS);
    expect(report.lost, shown).toEqual([]);
    expect(report.chargedWrongly, shown).toEqual([]);
    expect(report.settlements.problems, shown).toEqual([]);
    expect(report.settlements.confirmed, shown).toBeGreaterThan(0);
    expect(report.webhooks.missing, shown).toEqual([]);
    expect(report.webhooks.duplicates, shown).toBe(0);
    expect(audit.code, `${audit.stdout}\n${audit.stderr}`).toBe(0);
  }, 600_000);

  it('starts the current code again on a database the next release migrated further', async () => {
    const { url, db } = await isolatedTestDatabase();
    await sql`INSERT INTO kysely_migration (name, timestamp) VALUES ('9999_of_the_next_release', now())`.execute(db);
    const service = await startServerProcess({ DATABASE_URL: url, DEMO_PARTNER: 'never' });
    expect(await service.stop()).toBe(0);
  });
});
