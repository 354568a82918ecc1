import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { startDevnet } from '@paygate/devnet';
import {
  evmSignerFromAccount,
  executeOptionActions,
  GatewayClient,
  type PaymentOption,
  type Signers,
  solanaSignerFromKeyPair,
} from '@paygate/wallet';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { connect, migrateToLatest } from '../packages/server/src/db/database.ts';
import { startEmbeddedPostgres } from '../packages/server/src/db/embeddedPostgres.ts';
import { createPartner } from '../packages/server/src/partners/partners.ts';
import { percentile, type Spawned, startDevnetBenchService } from './support.ts';

const OPTIONS_SAMPLES = 100;
const PAYMENTS_PER_METHOD = 10;
const CONCURRENT_BUYERS = 200;
const LONG_POLL_MS = 25_000;

interface Service {
  spawned: Spawned;
  apiKey: string;
  merchantId: string;
}

function summary(samples: number[]): { p50: string; p95: string; mean: string } {
  const sorted = [...samples].sort((a, b) => a - b);
  const mean = samples.reduce((sum, value) => sum + value, 0) / samples.length;
  return { p50: percentile(sorted, 0.5).toFixed(1), p95: percentile(sorted, 0.95).toFixed(1), mean: mean.toFixed(1) };
}

async function createPayment(service: Service, currency: string, value: string): Promise<string> {
  const response = await fetch(`${service.spawned.url}/v1/payments`, {
    method: 'POST',
    headers: {
      'api-key': service.apiKey,
      'merchant-id': service.merchantId,
      'content-type': 'application/json',
      'idempotency-key': randomUUID(),
    },
    body: JSON.stringify({ amount: { unit: `iso4217/${currency}`, value }, referenceId: randomUUID() }),
  });
  const body = (await response.json()) as { paymentId?: string };
  if (!response.ok || !body.paymentId)
    throw new Error(`creating a payment answered ${response.status}: ${JSON.stringify(body)}`);
  return body.paymentId;
}

/** One payment from link to a final status; the chain's share is the time after the confirm was accepted. */
async function payOnce(
  client: GatewayClient,
  paymentId: string,
  accounts: string[],
  signers: Signers,
  pick: (option: PaymentOption) => boolean,
) {
  const started = performance.now();
  const { options } = await client.getOptions(paymentId, { accounts });
  const option = options.find(pick);
  if (!option)
    throw new Error(`no matching option among ${options.map((candidate) => candidate.amount.unit).join(', ')}`);
  const results = await executeOptionActions({ client, paymentId, option, signers });
  let status = await client.confirm(paymentId, { optionId: option.id, results }, { maxPollMs: 0 });
  const accepted = performance.now();
  while (!status.isFinal) status = await client.getStatus(paymentId, { maxPollMs: LONG_POLL_MS });
  const ended = performance.now();
  if (status.status !== 'succeeded') throw new Error(`payment ${paymentId} ended ${status.status}`);
  return { totalMs: ended - started, chainMs: ended - accepted };
}

export async function runGatewayBenchmark(): Promise<void> {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'paygate-bench-gateway-'));
  const devnet = await startDevnet({ dataDir: path.join(dataDir, 'devnet') });
  const database = await startEmbeddedPostgres(dataDir);
  const db = connect(database.url, 2);
  let spawned: Spawned | undefined;
  try {
    await migrateToLatest(db, database.url);
    const partner = await createPartner(db, 'Bench partner');
    spawned = await startDevnetBenchService(devnet, dataDir, database.url, db);
    const created = await fetch(`${spawned.url}/v1/merchants`, {
      method: 'POST',
      headers: { 'api-key': partner.apiKey, 'content-type': 'application/json', 'idempotency-key': randomUUID() },
      body: JSON.stringify({ merchantName: 'Bench Shop', merchantEmail: 'bench@shop.com' }),
    });
    const merchantId = ((await created.json()) as { merchant: { id: string } }).merchant.id;
    const service: Service = { spawned, apiKey: partner.apiKey, merchantId };
    const client = new GatewayClient({ baseUrl: spawned.url, auth: { apiKey: partner.apiKey } });
    const manifest = devnet.manifest;
    const rpcUrls = Object.fromEntries(manifest.evm.map((chain) => [chain.caip2, chain.rpcUrl]));

    const buyer = manifest.buyers[0]!;
    const accounts = [
      ...manifest.evm.map((chain) => `${chain.caip2}:${buyer.evmAddress}`),
      `${manifest.solana.caip2}:${buyer.solanaAddress}`,
    ];
    const signers: Signers = {
      eip155: evmSignerFromAccount(privateKeyToAccount(buyer.evmPrivateKey), { rpcUrls }),
      solana: solanaSignerFromKeyPair(buyer.solanaSecretKey),
    };
    process.stdout.write(
      `devnet: ${manifest.evm.length} EVM chains and Solana; buyer ${buyer.name}; service ${spawned.url}\n`,
    );

    const optionsPayment = await createPayment(service, 'USD', '1000');
    const optionTimes: number[] = [];
    let offered: PaymentOption[] = [];
    for (let sample = 0; sample < OPTIONS_SAMPLES + 3; sample++) {
      const started = performance.now();
      offered = (await client.getOptions(optionsPayment, { accounts })).options;
      if (sample >= 3) optionTimes.push(performance.now() - started);
    }
    const options = summary(optionTimes);
    process.stdout.write(
      `options for one account on ${accounts.length} chains (${offered.length} options), ${OPTIONS_SAMPLES} sequential requests: p50 ${options.p50} ms, p95 ${options.p95} ms\n`,
    );

    process.stdout.write(`link to succeeded, ${PAYMENTS_PER_METHOD} payments per option, one after another\n`);
    process.stdout.write('payment and option                                    p50 ms    p95 ms   chain share\n');
    // Every option a USD payment offers this buyer, and the euro stablecoin for a EUR payment.
    const eurPayment = await createPayment(service, 'EUR', '1000');
    const euroOptions = (await client.getOptions(eurPayment, { accounts })).options.filter(
      (option) => option.amount.display?.assetSymbol === 'EURC',
    );
    const kinds = new Map<string, { currency: string; pick: (option: PaymentOption) => boolean }>();
    for (const [currency, option] of [
      ...offered.map((option) => ['USD', option] as const),
      ...euroOptions.map((option) => ['EUR', option] as const),
    ]) {
      const method = option.actions.map((action) => (action.type === 'build' ? 'build' : action.data.method)).join('+');
      const label = `${currency} ${option.amount.display?.assetSymbol ?? option.amount.unit} ${option.account.split(':').slice(0, 2).join(':').slice(0, 16)} ${method}`;
      kinds.set(label, {
        currency,
        pick: (candidate) => candidate.amount.unit === option.amount.unit && candidate.account === option.account,
      });
    }
    for (const [label, kind] of kinds) {
      const totals: number[] = [];
      let chainMs = 0;
      for (let index = 0; index < PAYMENTS_PER_METHOD; index++) {
        const paymentId = await createPayment(service, kind.currency, '100');
        const timing = await payOnce(client, paymentId, accounts, signers, kind.pick);
        totals.push(timing.totalMs);
        chainMs += timing.chainMs;
      }
      const figures = summary(totals);
      const share = (100 * chainMs) / totals.reduce((sum, value) => sum + value, 0);
      process.stdout.write(
        `${label.padEnd(52)} ${figures.p50.padStart(7)} ${figures.p95.padStart(9)} ${share.toFixed(0).padStart(10)} %\n`,
      );
    }

    const chain = manifest.evm[0]!;
    const buyers = Array.from({ length: CONCURRENT_BUYERS }, () => privateKeyToAccount(generatePrivateKey()));
    await devnet.fund({ evm: buyers.map((account) => account.address) });
    const payments = await Promise.all(buyers.map(() => createPayment(service, 'USD', '100')));
    const usdc = (option: PaymentOption) =>
      option.amount.display?.assetSymbol === 'USDC' && option.account.startsWith(`${chain.caip2}:`);
    const started = performance.now();
    const outcomes = await Promise.allSettled(
      buyers.map((account, index) =>
        payOnce(
          client,
          payments[index]!,
          [`${chain.caip2}:${account.address}`],
          { eip155: evmSignerFromAccount(account, { rpcUrls }) },
          usdc,
        ),
      ),
    );
    const seconds = (performance.now() - started) / 1000;
    const done = outcomes.flatMap((outcome) => (outcome.status === 'fulfilled' ? [outcome.value.totalMs] : []));
    const failures = outcomes.flatMap((outcome) => (outcome.status === 'rejected' ? [String(outcome.reason)] : []));
    const concurrent = summary(done);
    process.stdout.write(
      `${CONCURRENT_BUYERS} buyers paying at once (USDC, EIP-3009, ${chain.caip2}): all final in ${seconds.toFixed(1)} s, ` +
        `${(done.length / seconds).toFixed(1)} payments/s, per payment p50 ${concurrent.p50} ms p95 ${concurrent.p95} ms, errors ${failures.length}\n`,
    );
    for (const failure of [...new Set(failures)].slice(0, 5)) process.stdout.write(`  error: ${failure}\n`);
  } finally {
    await spawned?.stop();
    await db.destroy();
    await database.stop();
    await devnet.stop();
    await fs.rm(dataDir, { recursive: true, force: true });
  }
}
