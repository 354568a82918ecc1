import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import fs from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { connect, type Db, migrateToLatest } from '../packages/server/src/db/database.ts';
import { startEmbeddedPostgres } from '../packages/server/src/db/embeddedPostgres.ts';
import { createPartner } from '../packages/server/src/partners/partners.ts';
import { foldPaymentStats } from '../packages/server/src/payments/paymentStatsFold.ts';
import { load, percentile, printTable, type Spawned, spawnListening, startMainnetService } from './support.ts';

/**
 * Issue targets: with 1,000,000 payments for one merchant, GET /v1/merchants/payments answers with p95 <= 100 ms
 * for each filter shape; creating payments and holding 10,000 long-polls in one process are measured alongside.
 * Server, PostgreSQL and load generator share this machine.
 */
const PAYMENT_COUNT = 1_000_000;
const BUYER_COUNT = 50_000;
const LIST_TARGET_P95_MS = 100;
const LONG_POLLS = 10_000;
const LONG_POLL_PAYMENTS = 100;
const SOLANA = 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp';

/** What buyers paid with, and how often; buyers are drawn per network so there are about BUYER_COUNT in all. */
const TOKEN_MIX = [
  {
    symbol: 'USDC',
    network: 'eip155:8453',
    asset: 'eip155:8453/erc20:0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
    decimals: 6,
    price: 1,
    share: 0.2,
  },
  {
    symbol: 'USDC',
    network: 'eip155:1',
    asset: 'eip155:1/erc20:0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48',
    decimals: 6,
    price: 1,
    share: 0.12,
  },
  {
    symbol: 'USDC',
    network: SOLANA,
    asset: `${SOLANA}/token:EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v`,
    decimals: 6,
    price: 1,
    share: 0.08,
  },
  {
    symbol: 'USDT',
    network: 'eip155:8453',
    asset: 'eip155:8453/erc20:0xfde4C96c8593536E31F229EA8f37b2ADa2699bb2',
    decimals: 6,
    price: 1,
    share: 0.1,
  },
  {
    symbol: 'USDT',
    network: 'eip155:1',
    asset: 'eip155:1/erc20:0xdAC17F958D2ee523a2206206994597C13D831ec7',
    decimals: 6,
    price: 1,
    share: 0.1,
  },
  {
    symbol: 'USDT',
    network: SOLANA,
    asset: `${SOLANA}/token:Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB`,
    decimals: 6,
    price: 1,
    share: 0.05,
  },
  {
    symbol: 'EURC',
    network: 'eip155:8453',
    asset: 'eip155:8453/erc20:0x60a3E35Cc302bFA44Cb288Bc5a4F316Fdb1adb42',
    decimals: 6,
    price: 1,
    share: 0.05,
  },
  {
    symbol: 'EURC',
    network: 'eip155:1',
    asset: 'eip155:1/erc20:0x1aBaEA1f7C830bD89Acc67eC4af516284b1bC33c',
    decimals: 6,
    price: 1,
    share: 0.03,
  },
  {
    symbol: 'EURC',
    network: SOLANA,
    asset: `${SOLANA}/token:HzwqbKZw8HxMN6bF2yFZNrht3c2iXXzpKcFu7uBEDKtr`,
    decimals: 6,
    price: 1,
    share: 0.02,
  },
  { symbol: 'ETH', network: 'eip155:8453', asset: 'eip155:8453/slip44:60', decimals: 18, price: 3000, share: 0.08 },
  { symbol: 'ETH', network: 'eip155:1', asset: 'eip155:1/slip44:60', decimals: 18, price: 3000, share: 0.07 },
  { symbol: 'SOL', network: SOLANA, asset: `${SOLANA}/slip44:501`, decimals: 9, price: 150, share: 0.1 },
];

/** Stored statuses by share; unpaid ones expire 15 minutes after creation, so all but the newest list as expired. */
const STATUS_MIX = [
  { status: 'succeeded', share: 0.85 },
  { status: 'failed', share: 0.03 },
  { status: 'cancelled', share: 0.02 },
  { status: 'expired', share: 0.03 },
  { status: 'requires_action', share: 0.05 },
  { status: 'processing', share: 0.02 },
];

/** `(lo, hi, ...values)` rows splitting [0, 1) by share, to pick a row with one random draw. */
function drawTable<T extends { share: number }>(rows: T[], values: (row: T) => unknown[]) {
  let lo = 0;
  return sql.join(
    rows.map((row) => {
      // The last row ends above 1 so that shares summing to 0.9999... in floating point still cover every draw.
      const hi = row === rows[rows.length - 1] ? 1.01 : lo + row.share;
      const tuple = sql`(${sql.lit(lo)}::float8, ${sql.lit(hi)}::float8, ${sql.join(values(row).map((value) => sql.lit(value)))})`;
      lo = hi;
      return tuple;
    }),
  );
}

function networkBuyerPools(): Map<string, number> {
  const shares = new Map<string, number>();
  for (const token of TOKEN_MIX) shares.set(token.network, (shares.get(token.network) ?? 0) + token.share);
  return new Map([...shares].map(([network, share]) => [network, Math.round(share * BUYER_COUNT)]));
}

/**
 * Inserts `count` payments for one merchant in one statement, created in time order (as a live table fills)
 * evenly over the past year. Paid statuses carry a token, buyer and transaction; unpaid ones do not.
 */
export async function seedPayments(db: Db, partnerId: string, merchantId: string, count: number): Promise<void> {
  const pools = networkBuyerPools();
  const tokens = drawTable(TOKEN_MIX, (token) => [
    token.symbol,
    token.network,
    token.asset,
    token.decimals,
    token.price,
    pools.get(token.network),
  ]);
  const statuses = drawTable(STATUS_MIX, (entry) => [entry.status]);
  const yearSeconds = 365 * 24 * 3600;
  await db.connection().execute(async (connection) => {
    // Repeatable data from run to run; no WAL flush per commit for a throw-away database.
    await sql`SELECT setseed(0.42)`.execute(connection);
    await sql`SET synchronous_commit = off`.execute(connection);
    await sql`
      INSERT INTO payments (id, partner_id, merchant_id, reference_id, status, failure_code, fiat_currency, fiat_value,
        expires_at, token_asset, token_symbol, network, token_value, buyer_account, buyer_provider_name, tx_hash, tx_nonce,
        fee_total, fee_percentage, settlement_amount, settlement_tx_hash, settled_at, created_at, updated_at)
      SELECT
        'pay_01BENCH' || lpad(d.g::text, 19, '0'), ${partnerId}, ${merchantId}, 'order-' || d.g, s.status,
        CASE WHEN s.status = 'failed' THEN 'transaction_reverted' END,
        CASE WHEN d.currency_draw < 0.15 THEN 'EUR' ELSE 'USD' END, d.fiat_value,
        d.created_at + CASE WHEN d.g > ${count} - 2000 THEN interval '24 hours' ELSE interval '15 minutes' END,
        CASE WHEN paid THEN t.asset END, CASE WHEN paid THEN t.symbol END, CASE WHEN paid THEN t.network END,
        CASE WHEN paid THEN t.token_value END,
        CASE WHEN paid THEN t.network || ':' || CASE WHEN t.evm
          THEN '0x' || lpad(to_hex(t.buyer), 40, '0') ELSE 'Buyer' || lpad(t.buyer::text, 39, '1') END END,
        CASE WHEN paid THEN CASE WHEN t.evm THEN 'MetaMask' ELSE 'Phantom' END END,
        CASE WHEN paid THEN CASE WHEN t.evm THEN '0x' ELSE '' END || md5(d.g::text) || md5((-d.g)::text) END,
        CASE WHEN paid AND t.evm THEN d.g % 5000 END,
        CASE WHEN paid THEN round(t.token_value / 100) END, CASE WHEN paid THEN '1.0' END,
        CASE WHEN s.status = 'succeeded' THEN t.token_value - round(t.token_value / 100) END,
        CASE WHEN s.status = 'succeeded' THEN '0x' || md5('settle' || d.g) || md5('settled' || d.g) END,
        CASE WHEN s.status = 'succeeded' THEN d.created_at + interval '10 minutes' END,
        d.created_at,
        d.created_at + CASE WHEN paid THEN interval '2 minutes' ELSE interval '15 minutes' END
      FROM (
        SELECT g, now() - ${yearSeconds}::float8 * interval '1 second' + g * ${yearSeconds / count}::float8 * interval '1 second' AS created_at,
          random() AS status_draw, random() AS token_draw, random() AS currency_draw, random() AS buyer_draw,
          100 + floor(random() ^ 3 * 100000)::bigint AS fiat_value
        FROM generate_series(1, ${count}) AS g
      ) AS d
      JOIN (VALUES ${statuses}) AS s (lo, hi, status) ON d.status_draw >= s.lo AND d.status_draw < s.hi
      CROSS JOIN LATERAL (SELECT s.status IN ('succeeded', 'failed', 'processing') AS paid) AS p
      JOIN LATERAL (
        SELECT symbol, network, asset, network LIKE 'eip155:%' AS evm, floor(d.buyer_draw * buyer_pool)::int AS buyer,
          round(d.fiat_value * 10::numeric ^ (decimals - 2) / price)::numeric(78, 0) AS token_value
        FROM (VALUES ${tokens}) AS mix (lo, hi, symbol, network, asset, decimals, price, buyer_pool)
        WHERE d.token_draw >= mix.lo AND d.token_draw < mix.hi
      ) AS t ON true
    `.execute(connection);
  });
}

function residentMb(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(match?.[1]) / 1024;
}

function openFilesLimit(): number {
  const match = /Max open files\s+(\d+)/.exec(readFileSync('/proc/self/limits', 'utf8'));
  return Number(match?.[1]);
}

interface ListPage {
  nextCursor: string | null;
  stats: { totalTransactions: number };
}

interface ListCaseResult {
  name: string;
  samples: number;
  meanMs: number;
  p50Ms: number;
  p95Ms: number;
  maxMs: number;
  matched: number;
}

async function fetchList(baseUrl: string, headers: Record<string, string>, query: URLSearchParams): Promise<ListPage> {
  const response = await fetch(`${baseUrl}/v1/merchants/payments?${query}`, { headers });
  if (response.status !== 200) throw new Error(`list ?${query}: ${response.status} ${await response.text()}`);
  return (await response.json()) as ListPage;
}

/** Sequential requests after a warm-up: 50, or fewer (never under 15) when a slow case would take over 45 s. */
async function timeListCase(name: string, fetchPage: () => Promise<ListPage>): Promise<ListCaseResult> {
  for (let i = 0; i < 3; i++) await fetchPage();
  const durations: number[] = [];
  let matched = 0;
  const started = performance.now();
  while (durations.length < 50 && (durations.length < 15 || performance.now() - started < 45_000)) {
    const sent = performance.now();
    matched = (await fetchPage()).stats.totalTransactions;
    durations.push(performance.now() - sent);
  }
  const sorted = [...durations].sort((a, b) => a - b);
  return {
    name,
    samples: sorted.length,
    meanMs: sorted.reduce((sum, value) => sum + value, 0) / sorted.length,
    p50Ms: percentile(sorted, 0.5),
    p95Ms: percentile(sorted, 0.95),
    maxMs: sorted[sorted.length - 1] ?? Number.NaN,
    matched,
  };
}

async function measureListCases(baseUrl: string, headers: Record<string, string>): Promise<ListCaseResult[]> {
  const list = (query: Record<string, string>) => () => fetchList(baseUrl, headers, new URLSearchParams(query));
  const now = Date.now();
  const results = [
    await timeListCase('(a) first page, no filters', list({ limit: '50' })),
    await timeListCase(
      '(b) succeeded, last 30 days',
      list({
        status: 'succeeded',
        startTs: new Date(now - 30 * 86_400_000).toISOString(),
        endTs: new Date(now).toISOString(),
      }),
    ),
    await timeListCase('(c) token_symbol=USDC, network=Base', list({ token_symbol: 'USDC', network: 'eip155:8453' })),
    await timeListCase('(d) referenceId contains 12345', list({ referenceId: '12345' })),
  ];

  let cursor: string | null = null;
  const walkStarted = performance.now();
  for (let page = 1; page <= 100; page++) {
    const query = new URLSearchParams({ limit: '50' });
    if (cursor) query.set('cursor', cursor);
    cursor = (await fetchList(baseUrl, headers, query)).nextCursor;
    if (!cursor) throw new Error(`the list ended after page ${page}`);
  }
  process.stdout.write(
    `walked 100 pages of 50 by cursor in ${((performance.now() - walkStarted) / 1000).toFixed(1)} s\n`,
  );
  results.push(await timeListCase('(e) page 101 by cursor', list({ limit: '50', cursor: cursor as string })));
  results.push(await timeListCase('(f) sortBy=amount', list({ limit: '50', sortBy: 'amount' })));
  // Not issue targets: shapes whose distinct-customer count reads more rows, measured to show where the limits are.
  results.push(await timeListCase('(g) status=succeeded, all time', list({ status: 'succeeded' })));
  results.push(await timeListCase('(h) network=Base', list({ network: 'eip155:8453' })));
  results.push(
    await timeListCase(
      '(i) token_symbol=USDC, last 30 days',
      list({ token_symbol: 'USDC', startTs: new Date(now - 30 * 86_400_000).toISOString() }),
    ),
  );
  return results;
}

function printListTable(rows: ListCaseResult[]): void {
  const columns = ['n', 'mean ms', 'p50 ms', 'p95 ms', 'max ms', 'matched', `p95<=${LIST_TARGET_P95_MS}`];
  process.stdout.write(`${'list case'.padEnd(38)} ${columns.map((column) => column.padStart(9)).join(' ')}\n`);
  for (const row of rows) {
    const cells = [
      row.samples,
      row.meanMs.toFixed(1),
      row.p50Ms.toFixed(1),
      row.p95Ms.toFixed(1),
      row.maxMs.toFixed(1),
      row.matched,
    ];
    const met = row.p95Ms <= LIST_TARGET_P95_MS ? 'yes' : 'NO';
    process.stdout.write(
      `${row.name.padEnd(38)} ${[...cells, met].map((cell) => String(cell).padStart(9)).join(' ')}\n`,
    );
  }
}

async function measureCreateThroughput(baseUrl: string, headers: Record<string, string>): Promise<void> {
  const bare = await spawnListening(['--import', 'tsx', 'bench/bareServer.ts'], {}, /listening (http:\/\/\S+)/);
  try {
    const paymentBody = () =>
      JSON.stringify({ amount: { unit: 'iso4217/USD', value: '1000' }, referenceId: `load-${randomUUID()}` });
    const create = {
      url: `${baseUrl}/v1/payments`,
      method: 'POST' as const,
      headers: { ...headers, 'content-type': 'application/json' },
      // Each request a new referenceId, so every one inserts a payment rather than replaying one.
      setupClient: (client: { setBody(body: string): void; on(event: 'response', listener: () => void): void }) => {
        client.setBody(paymentBody());
        client.on('response', () => client.setBody(paymentBody()));
      },
    };
    await load('warm-up', { ...create, duration: 3 });
    const bareResult = await load('bare Fastify JSON route', { url: `${bare.url}/bare` });
    const createResult = await load('POST /v1/payments', create);
    printTable([bareResult, createResult]);
    process.stdout.write(
      `ratio create/bare: ${(createResult.requestsPerSecond / bareResult.requestsPerSecond).toFixed(3)}\n`,
    );
  } finally {
    await bare.stop();
  }
}

interface LongPollAnswer {
  paymentId: string;
  answeredAt: number;
  status?: string;
  error?: string;
}

/** Sends one long-poll; `sent` settles once its connection is open and the request written, `answered` when its response ends. */
function holdLongPoll(agent: http.Agent, baseUrl: string, headers: Record<string, string>, paymentId: string) {
  const request = http.request(`${baseUrl}/v1/payments/${paymentId}/status?maxPollMs=30000`, { agent, headers });
  const connected = new Promise<void>((resolve) => {
    request.once('socket', (socket) => (socket.connecting ? socket.once('connect', () => resolve()) : resolve()));
    request.once('error', () => resolve());
  });
  const written = new Promise<void>((resolve) => {
    request.once('finish', resolve);
    request.once('error', () => resolve());
  });
  const answered = new Promise<LongPollAnswer>((resolve) => {
    request.once('error', (error) => resolve({ paymentId, answeredAt: performance.now(), error: error.message }));
    request.once('response', (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        body += chunk;
      });
      response.once('end', () => {
        const answeredAt = performance.now();
        if (response.statusCode !== 200) resolve({ paymentId, answeredAt, error: `HTTP ${response.statusCode}` });
        else resolve({ paymentId, answeredAt, status: (JSON.parse(body) as { status: string }).status });
      });
    });
  });
  request.end();
  return { sent: Promise.all([connected, written]), answered };
}

/** Waits (10 s at most) until a plain status read is fast twice in a row: the long-polls' own reads have drained. */
async function waitUntilServiceIdle(statusUrl: string, headers: Record<string, string>): Promise<void> {
  const started = performance.now();
  let quickInARow = 0;
  while (quickInARow < 2 && performance.now() - started < 10_000) {
    const sent = performance.now();
    await (await fetch(statusUrl, { headers })).arrayBuffer();
    quickInARow = performance.now() - sent < 100 ? quickInARow + 1 : 0;
    await sleep(100);
  }
}

async function measureLongPolls(service: Spawned, headers: Record<string, string>): Promise<void> {
  const pid = service.child.pid as number;
  const fileLimit = openFilesLimit();
  if (fileLimit < LONG_POLLS + 1024)
    throw new Error(`open files limit ${fileLimit} is too low for ${LONG_POLLS} long-polls; raise ulimit -n`);
  const paymentIds: string[] = [];
  for (let i = 0; i < LONG_POLL_PAYMENTS; i++) {
    const response = await fetch(`${service.url}/v1/payments`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ amount: { unit: 'iso4217/USD', value: '2500' }, referenceId: `poll-${randomUUID()}` }),
    });
    if (response.status !== 201) throw new Error(`create payment: ${response.status} ${await response.text()}`);
    paymentIds.push(((await response.json()) as { paymentId: string }).paymentId);
  }
  const rssBefore = residentMb(pid);

  const agent = new http.Agent({ keepAlive: false, maxSockets: Number.POSITIVE_INFINITY });
  try {
    const sendStarted = performance.now();
    const polls: ReturnType<typeof holdLongPoll>[] = [];
    const answers: LongPollAnswer[] = [];
    // In batches below the listen backlog (511): an overflowing backlog drops SYNs, and a retried connection
    // would arrive seconds late and be mistaken for a slow wake-up.
    for (let batchStart = 0; batchStart < LONG_POLLS; batchStart += 250) {
      const batch: ReturnType<typeof holdLongPoll>[] = [];
      for (let i = batchStart; i < Math.min(batchStart + 250, LONG_POLLS); i++) {
        // Consecutive long-polls share a payment, so the earliest held are cancelled first, well before their 30 s run out.
        batch.push(
          holdLongPoll(
            agent,
            service.url,
            headers,
            paymentIds[Math.floor((i * LONG_POLL_PAYMENTS) / LONG_POLLS)] as string,
          ),
        );
      }
      for (const poll of batch) void poll.answered.then((answer) => answers.push(answer));
      await Promise.all(batch.map((poll) => poll.sent));
      polls.push(...batch);
    }
    await waitUntilServiceIdle(`${service.url}/v1/payments/${paymentIds[0]}/status`, headers);
    const heldAfterMs = performance.now() - sendStarted;
    const rssHolding = residentMb(pid);
    const answeredBeforeCancel = answers.length;

    const cancelAnsweredAt = new Map<string, number>();
    const cancelStarted = performance.now();
    for (const paymentId of paymentIds) {
      const response = await fetch(`${service.url}/v1/payments/${paymentId}/cancel`, { method: 'POST', headers });
      await response.arrayBuffer();
      if (response.status !== 200) throw new Error(`cancel ${paymentId}: ${response.status}`);
      cancelAnsweredAt.set(paymentId, performance.now());
    }
    const cancelsMs = performance.now() - cancelStarted;
    const everyAnswer = Promise.all(polls.map((poll) => poll.answered));
    const outcome = await Promise.race([everyAnswer, sleep(45_000).then(() => undefined)]);

    const wakeUps = answers
      .filter((answer) => answer.status === 'cancelled')
      .map((answer) => answer.answeredAt - (cancelAnsweredAt.get(answer.paymentId) as number))
      .sort((a, b) => a - b);
    const failed = answers.filter((answer) => answer.error !== undefined);
    const unchanged = answers.filter((answer) => answer.status !== undefined && answer.status !== 'cancelled');
    const lastAnsweredMs = Math.max(...answers.map((answer) => answer.answeredAt)) - cancelStarted;
    process.stdout.write(
      [
        `long-polls: ${LONG_POLLS} over ${LONG_POLL_PAYMENTS} payments, all sent and read by the service in ${(heldAfterMs / 1000).toFixed(1)} s (open files limit ${fileLimit})`,
        `service RSS: ${rssBefore.toFixed(0)} MB before, ${rssHolding.toFixed(0)} MB holding them (${(((rssHolding - rssBefore) * 1024) / LONG_POLLS).toFixed(1)} KB per long-poll)`,
        `${LONG_POLL_PAYMENTS} sequential cancels took ${cancelsMs.toFixed(0)} ms; last waiter answered ${lastAnsweredMs.toFixed(0)} ms after the first cancel was sent`,
        `cancel response -> waiter response: p50 ${percentile(wakeUps, 0.5).toFixed(1)} ms, p99 ${percentile(wakeUps, 0.99).toFixed(1)} ms, ` +
          `min ${(wakeUps[0] ?? Number.NaN).toFixed(1)} ms, max ${(wakeUps[wakeUps.length - 1] ?? Number.NaN).toFixed(1)} ms (${wakeUps.length} woken as cancelled)`,
        `answered before any cancel: ${answeredBeforeCancel}; answered unchanged (30 s ran out): ${unchanged.length}; errors: ${failed.length}${failed[0] ? ` (first: ${failed[0].error})` : ''}; unanswered after 45 s: ${outcome ? 0 : LONG_POLLS - answers.length}`,
        '',
      ].join('\n'),
    );
  } finally {
    agent.destroy();
  }
}

export async function runPaymentsBenchmark(): Promise<void> {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'paygate-bench-'));
  const database = await startEmbeddedPostgres(dataDir);
  const db = connect(database.url, 4);
  const processes: Spawned[] = [];
  try {
    await migrateToLatest(db, database.url);
    const partner = await createPartner(db, 'Bench partner');
    const service = await startMainnetService(database.url, dataDir, [
      ...new Set(TOKEN_MIX.map((token) => token.network)),
    ]);
    processes.push(service);
    const created = await fetch(`${service.url}/v1/merchants`, {
      method: 'POST',
      headers: { 'api-key': partner.apiKey, 'content-type': 'application/json', 'idempotency-key': randomUUID() },
      body: JSON.stringify({ merchantName: 'Bench Shop', merchantEmail: 'bench@shop.com' }),
    });
    const merchantId = ((await created.json()) as { merchant: { id: string } }).merchant.id;
    const headers = { 'api-key': partner.apiKey, 'merchant-id': merchantId };

    const seedStarted = performance.now();
    await seedPayments(db, partner.partnerId, merchantId, PAYMENT_COUNT);
    const seedSeconds = (performance.now() - seedStarted) / 1000;
    // The service folds statistics deltas every few seconds; a live table has only the last seconds' left.
    const foldStarted = performance.now();
    const folded = await foldPaymentStats(db);
    const foldSeconds = (performance.now() - foldStarted) / 1000;
    // Leaves visibility map and statistics as autovacuum would on a live table, so index-only scans are possible.
    const vacuumStarted = performance.now();
    await sql`VACUUM (ANALYZE) payments, payment_daily_stats, payment_stats_deltas, merchant_buyers, payment_buyers`.execute(
      db,
    );
    process.stdout.write(
      `seeded ${PAYMENT_COUNT} payments in ${seedSeconds.toFixed(1)} s; folded ${folded} statistics deltas in ${foldSeconds.toFixed(1)} s; ` +
        `VACUUM ANALYZE ${((performance.now() - vacuumStarted) / 1000).toFixed(1)} s\n`,
    );

    printListTable(await measureListCases(service.url, headers));
    await measureCreateThroughput(service.url, headers);

    // A fresh process, so its memory before the long-polls is a baseline untouched by the load above.
    await service.stop();
    const pollService = await startMainnetService(database.url, dataDir, [
      ...new Set(TOKEN_MIX.map((token) => token.network)),
    ]);
    processes.push(pollService);
    await measureLongPolls(pollService, headers);
  } finally {
    await Promise.all(processes.map((spawned) => spawned.stop()));
    await db.destroy();
    await database.stop();
    await fs.rm(dataDir, { recursive: true, force: true });
  }
}
