import { execFile } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { type Devnet, type DevnetBuyer, startDevnet } from '@paygate/devnet';
import { generateKeyPairSigner } from '@solana/kit';
import { sql } from 'kysely';
import { type Address, createPublicClient, erc20Abi, getAddress, http } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectorAddresses } from '../../src/chains/collectorKeys.ts';
import { networksFromDevnet } from '../../src/chains/devnetNetworks.ts';
import { readSolanaBalances } from '../../src/chains/solana/readSolanaBalances.ts';
import { solanaRpc } from '../../src/chains/solana/rpc.ts';
import { connect, type Db, migrateToLatest } from '../../src/db/database.ts';
import { recordFunding } from '../../src/ledger/funding.ts';
import { createPartner } from '../../src/partners/partners.ts';
import { signSolanaAsWallet, signTypedDataAsWallet } from '../gateway/support/gatewayTestbed.ts';
import { createMerchant } from '../support/fixtures.ts';
import {
  CLUSTER_USER,
  clusterLog,
  configureCluster,
  createClusterDatabase,
  initCluster,
  type PostgresCluster,
  postgresFolder,
  runPostgresTool,
  startCluster,
} from '../support/postgresCluster.ts';
import { scrape } from '../support/prometheusText.ts';
import { runCli, type ServerProcess, startServerProcess } from '../support/serverProcess.ts';
import { call } from '../support/testServer.ts';

const run = promisify(execFile);
const FINAL = ['succeeded', 'failed', 'expired', 'cancelled'];

/**
 * The backup drill of the README's "Backups": `paygate start` on a PostgreSQL of its own (the machine's packaged one,
 * whose pg_basebackup matches its server) while buyers pay and settlements go out on the devnet; a base backup taken
 * meanwhile, the WAL archived after it, the service killed and its database lost; the backup restored with that WAL
 * into a fresh cluster and the service started on it. Then restores to an older point, which the chain is ahead of,
 * on the EVM chain and on Solana: without the service's check, each paid a merchant's settlement twice.
 */
describe('backup and restore while payments flow', () => {
  let dataDir: string;
  let archiveDir: string;
  let devnet: Devnet;
  let cluster: PostgresCluster;
  let db: Db;
  let service: ServerProcess | undefined;
  let chainsFile: string;
  let apiKey: string;
  let collector: { evm: string; solana: string };
  const keys = { evmPrivateKey: generatePrivateKey(), solanaSeedHex: randomBytes(32).toString('hex') };
  const dataEncryptionKey = randomBytes(32).toString('hex');

  const serviceEnv = (extra: Record<string, string> = {}) => ({
    DATABASE_URL: cluster.url,
    DATA_DIR: path.join(dataDir, 'service'),
    CHAINS: chainsFile,
    COLLECTOR_EVM_PRIVATE_KEY: keys.evmPrivateKey,
    COLLECTOR_SOLANA_SEED: keys.solanaSeedHex,
    DATA_ENCRYPTION_KEY: dataEncryptionKey,
    PRICE_SOURCE: 'fixed',
    DEMO_PARTNER: 'never',
    SETTLEMENT_INTERVAL_MS: '1000',
    ...extra,
  });

  async function startService(extra: Record<string, string> = {}): Promise<ServerProcess> {
    service = await startServerProcess(serviceEnv(extra));
    return service;
  }

  async function stopService(): Promise<void> {
    await service?.stop();
    service = undefined;
  }

  /** The service's database goes: its connections here closed, PostgreSQL stopped. */
  async function loseCluster(): Promise<void> {
    await db.destroy();
    await cluster.stop();
  }

  /**
   * A base backup of the running cluster, as an operator takes one: pg_basebackup over the replication protocol, the
   * WAL written meanwhile streamed into it (`-X stream`), so the folder alone starts as the cluster was at its end.
   */
  async function baseBackup(name: string): Promise<string> {
    const target = path.join(dataDir, name);
    await postgresFolder(target);
    await runPostgresTool('pg_basebackup', [
      '-d',
      `host=127.0.0.1 port=${cluster.port} user=${CLUSTER_USER}`,
      '-D',
      target,
      '-X',
      'stream',
      '-c',
      'fast',
      '--no-sync',
    ]);
    return target;
  }

  /** The backup copied into a fresh cluster folder (as PostgreSQL's user), settings appended, and started. */
  async function restore(backup: string, name: string, settings: Record<string, string>, recover: boolean) {
    const target = path.join(dataDir, name);
    await run('cp', ['-a', backup, target]);
    await configureCluster(target, settings);
    if (recover) await fs.writeFile(path.join(target, 'recovery.signal'), '');
    cluster = await startCluster(target);
    db = connect(cluster.url, 4);
    // Read-only until recovery has replayed the last WAL it was given and the cluster is promoted.
    const deadline = Date.now() + 120_000;
    while ((await sql<{ r: boolean }>`SELECT pg_is_in_recovery() AS r`.execute(db)).rows[0]?.r) {
      if (Date.now() > deadline) throw new Error(`still recovering:\n${await clusterLog(cluster)}`);
      await sleep(250);
    }
  }

  beforeAll(async () => {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'paygate-backup-'));
    // PostgreSQL runs as its own user when this runs as root: it must pass through to its folders.
    await fs.chmod(dataDir, 0o711);
    archiveDir = await postgresFolder(path.join(dataDir, 'wal-archive'));
    devnet = await startDevnet({ dataDir: path.join(dataDir, 'devnet') });
    const clusterDir = path.join(dataDir, 'cluster-a');
    await initCluster(clusterDir);
    // Continuous archiving, as the README's "Backups" sets it up: every finished WAL segment copied to the archive.
    await configureCluster(clusterDir, {
      wal_level: 'replica',
      archive_mode: 'on',
      archive_command: `test ! -f ${archiveDir}/%f && cp %p ${archiveDir}/%f`,
    });
    cluster = await startCluster(clusterDir);
    await createClusterDatabase(cluster);
    db = connect(cluster.url, 4);
    await migrateToLatest(db, cluster.url);
    apiKey = (await createPartner(db, 'Backup drill partner')).apiKey;
    collector = await collectorAddresses(keys);
    await recordFunding(db, await devnet.fund({ evm: [collector.evm], solana: [collector.solana] }));
    chainsFile = path.join(dataDir, 'chains.json');
    await fs.writeFile(chainsFile, JSON.stringify(networksFromDevnet(devnet.manifest)));
  }, 300_000);

  afterAll(async () => {
    await stopService().catch(() => {});
    await db?.destroy().catch(() => {});
    await cluster?.stop();
    await devnet?.stop();
    if (dataDir) await fs.rm(dataDir, { recursive: true, force: true });
  });

  const evmChain = () => devnet.manifest.evm[0]!;
  const usdc = () => {
    const evm = evmChain().tokens.find((token) => token.symbol === 'USDC')!;
    const solana = devnet.manifest.solana.tokens.find((token) => token.symbol === 'USDC')!;
    return { evm, solana };
  };
  const buyer = (name: string): DevnetBuyer => devnet.manifest.buyers.find((candidate) => candidate.name === name)!;

  /** A merchant of the partner's with USDC settlement destinations of its own on the EVM chain and, if asked, Solana. */
  async function merchantWithDestinations(solana: boolean) {
    const base = { url: service!.url };
    const merchantId = (await createMerchant(base, apiKey)).id;
    const evmDestination = `${evmChain().caip2}:${privateKeyToAccount(generatePrivateKey()).address}`;
    const solanaDestination = `${devnet.manifest.solana.caip2}:${(await generateKeyPairSigner()).address}`;
    const settlements = [{ asset: usdc().evm.caip19, destination: evmDestination }];
    if (solana) settlements.push({ asset: usdc().solana.caip19, destination: solanaDestination });
    const added = await call(base, `/v1/merchants/${merchantId}/settlements/crypto`, {
      method: 'POST',
      headers: { 'api-key': apiKey, 'idempotency-key': randomUUID() },
      body: { settlements },
    });
    expect(added.status, added.text).toBe(201);
    return { merchantId, evmDestination, solanaDestination };
  }

  /**
   * A call to whichever service runs now, asked again while none answers (killed, or its database being restored)
   * or it answers 5xx; any other answer is returned.
   */
  async function persistent(route: string, options: Parameters<typeof call>[2]) {
    const deadline = Date.now() + 240_000;
    for (;;) {
      const running = service;
      if (running) {
        const answer = await call(running, route, options).catch(() => undefined);
        if (answer && answer.status < 500) return answer;
      }
      if (Date.now() > deadline) throw new Error(`${route}: no answer`);
      await sleep(500);
    }
  }

  /**
   * A buyer pays a new payment of `cents` US cents in USDC through the gateway as a wallet does (options, signature,
   * confirm), without waiting for it to succeed; the confirm is sent again with the same signature until a service
   * answers it.
   */
  async function pay(merchantId: string, name: string, chain: 'evm' | 'solana', cents: number): Promise<string> {
    const headers = { 'api-key': apiKey, 'merchant-id': merchantId };
    const created = await persistent('/v1/payments', {
      method: 'POST',
      headers,
      body: { amount: { unit: 'iso4217/USD', value: String(cents) }, referenceId: `drill-${randomUUID()}` },
    });
    expect(created.status, created.text).toBe(201);
    const { paymentId } = created.body;
    const account =
      chain === 'evm'
        ? `${evmChain().caip2}:${buyer(name).evmAddress}`
        : `${devnet.manifest.solana.caip2}:${buyer(name).solanaAddress}`;
    const gateway = `/v1/gateway/payment/${paymentId}`;
    const options = await persistent(`${gateway}/options`, { method: 'POST', headers, body: { accounts: [account] } });
    expect(options.status, options.text).toBe(200);
    const asset = chain === 'evm' ? usdc().evm.caip19 : usdc().solana.caip19;
    const option = options.body.options.find((candidate: any) => candidate.amount.unit === `caip19/${asset}`);
    expect(option, options.text).toBeDefined();
    let signed: string;
    if (chain === 'evm') {
      signed = await signTypedDataAsWallet(buyer(name).evmPrivateKey, option.actions[0].data.params);
    } else {
      const fetched = await persistent(`${gateway}/fetch`, {
        method: 'POST',
        headers,
        body: { optionId: option.id, data: option.actions[0].data.data },
      });
      expect(fetched.status, fetched.text).toBe(200);
      signed = await signSolanaAsWallet(buyer(name).solanaSecretKey, fetched.body.actions[0].data.params);
    }
    await persistent(`${gateway}/confirm?maxPollMs=0`, {
      method: 'POST',
      headers,
      body: { optionId: option.id, results: [{ type: 'walletRpc', data: [signed] }] },
    });
    return paymentId;
  }

  /** A round of buyers paying at once: three on the EVM chain, two on Solana. */
  function payRound(merchantId: string): Promise<string[]> {
    const cents = () => 100 + Math.floor(Math.random() * 800);
    return Promise.all([
      pay(merchantId, 'alice', 'evm', cents()),
      pay(merchantId, 'bob', 'evm', cents()),
      pay(merchantId, 'erin', 'evm', cents()),
      pay(merchantId, 'alice', 'solana', cents()),
      pay(merchantId, 'erin', 'solana', cents()),
    ]);
  }

  /** What is still open: payments not final, settlements not confirmed, transfers of the journals not final. */
  async function openWork(merchantId: string) {
    const { rows } = await sql<Record<string, string>>`
      SELECT
        (SELECT count(*) FROM payments WHERE merchant_id = ${merchantId} AND status <> ALL(${FINAL})) AS payments,
        (SELECT count(*) FROM settlement_batches WHERE merchant_id = ${merchantId} AND status IN ('claimed', 'sent')) AS batches,
        (SELECT count(*) FROM payments WHERE merchant_id = ${merchantId} AND status = 'succeeded' AND settled_at IS NULL) AS unsettled,
        (SELECT count(*) FROM evm_transactions WHERE status IN ('recorded', 'broadcast')) AS evm,
        (SELECT count(*) FROM solana_transactions WHERE status IN ('recorded', 'sent')) AS solana`.execute(db);
    return Object.fromEntries(Object.entries(rows[0]!).map(([key, count]) => [key, Number(count)]));
  }

  async function untilDone(merchantId: string, limitMs: number): Promise<void> {
    const deadline = Date.now() + limitMs;
    for (;;) {
      const open = await openWork(merchantId).catch(() => undefined);
      if (open && Object.values(open).every((count) => count === 0)) return;
      if (Date.now() > deadline) throw new Error(`still open: ${JSON.stringify(open)}\n${service?.output()}`);
      await sleep(1_000);
    }
  }

  async function confirmedBatches(merchantId: string) {
    return db
      .selectFrom('settlement_batches')
      .select(['id', 'asset', 'amount', 'network'])
      .where('merchant_id', '=', merchantId)
      .where('status', '=', 'confirmed')
      .execute();
  }

  async function untilSettled(merchantId: string, networks: string[]): Promise<void> {
    const deadline = Date.now() + 120_000;
    for (;;) {
      const settled = new Set((await confirmedBatches(merchantId)).map((batch) => batch.network));
      if (networks.every((network) => settled.has(network))) return;
      if (Date.now() > deadline) throw new Error(`no settlement on ${networks}:\n${service?.output()}`);
      await sleep(500);
    }
  }

  const evmClient = () => createPublicClient({ transport: http(evmChain().rpcUrl) });

  async function evmUsdcHeld(caip10: string): Promise<bigint> {
    return evmClient().readContract({
      address: usdc().evm.address as Address,
      abi: erc20Abi,
      functionName: 'balanceOf',
      args: [getAddress(caip10.split(':')[2]!)],
    });
  }

  async function solanaUsdcHeld(caip10: string): Promise<bigint> {
    const owner = caip10.split(':')[2]!;
    const mint = usdc().solana.address;
    return (
      (await readSolanaBalances(solanaRpc(devnet.manifest.solana.rpcUrl), [owner], [mint]))[owner]?.tokens[mint] ?? 0n
    );
  }

  /** How many transactions the collector has sent on the EVM chain: its nonce on chain. */
  const collectorNonce = async () =>
    BigInt(await evmClient().getTransactionCount({ address: collector.evm as Address, blockTag: 'latest' }));

  it('restores a base backup taken while payments flow, with the WAL archived after it: nothing sent twice, every payment final, the audit balanced', async () => {
    await startService();
    const shop = await merchantWithDestinations(true);
    const payments = await payRound(shop.merchantId);
    await untilSettled(shop.merchantId, [evmChain().caip2, devnet.manifest.solana.caip2]);

    // The backup is taken while a second round pays, and settlements go out every second.
    const secondRound = payRound(shop.merchantId);
    await sleep(500);
    const backup = await baseBackup('backup-1');
    payments.push(...(await secondRound));

    // A third round is under way when the service is killed; then its database is lost, all but the archive.
    const thirdRound = payRound(shop.merchantId);
    await sleep(1_500);
    const killed = service!;
    service = undefined;
    killed.child.kill('SIGKILL');
    await new Promise((resolve) => killed.child.once('exit', resolve));
    // The last WAL segment goes to the archive (archive_timeout does this in production, within its bound).
    const { rows } = await sql<{ segment: string }>`SELECT pg_walfile_name(pg_switch_wal()) AS segment`.execute(db);
    const segment = rows[0]!.segment;
    for (;;) {
      const archived = await sql<{
        last: string | null;
      }>`SELECT last_archived_wal AS last FROM pg_stat_archiver`.execute(db);
      if ((archived.rows[0]?.last ?? '') >= segment) break;
      await sleep(200);
    }
    await loseCluster();

    await restore(backup, 'cluster-b', { restore_command: `cp ${archiveDir}/%f %p` }, true);
    await startService();
    payments.push(...(await thirdRound));
    await untilDone(shop.merchantId, 240_000);

    // Every payment the restored database knows is final, those the buyers made among them.
    const known = await db
      .selectFrom('payments')
      .select(['id', 'status'])
      .where('merchant_id', '=', shop.merchantId)
      .execute();
    expect(known.map((payment) => payment.id).sort()).toEqual([...payments].sort());
    for (const payment of known) expect(FINAL).toContain(payment.status);
    expect(known.filter((payment) => payment.status === 'succeeded').length).toBeGreaterThan(0);

    // Each EVM transaction of the journal took one nonce of the collector, and the chain has no other.
    const journal = await db
      .selectFrom('evm_transactions')
      .select(['nonce', 'status', 'purpose', 'mined_hash'])
      .where('chain', '=', evmChain().caip2)
      .orderBy('nonce')
      .execute();
    expect(journal.map((transaction) => BigInt(transaction.nonce))).toEqual(
      journal.map((_row, index) => BigInt(index)),
    );
    expect(journal.every((transaction) => transaction.status === 'confirmed')).toBe(true);
    expect(await collectorNonce()).toBe(BigInt(journal.length));
    // What left the collector in USDC on chain is exactly the journal's settlements, each once.
    const outgoing = await evmClient().getContractEvents({
      address: usdc().evm.address as Address,
      abi: erc20Abi,
      eventName: 'Transfer',
      args: { from: collector.evm as Address },
      fromBlock: 0n,
    });
    const settlementHashes = journal.filter((row) => row.purpose === 'settlement').map((row) => row.mined_hash);
    expect(outgoing.map((event) => event.transactionHash).sort()).toEqual([...settlementHashes].sort());

    // Each destination holds exactly what the confirmed settlements sent it, and no payment is in two of them.
    const batches = await confirmedBatches(shop.merchantId);
    const sent = (network: string) =>
      batches.filter((batch) => batch.network === network).reduce((sum, batch) => sum + BigInt(batch.amount), 0n);
    expect(await evmUsdcHeld(shop.evmDestination)).toBe(sent(evmChain().caip2));
    expect(await solanaUsdcHeld(shop.solanaDestination)).toBe(sent(devnet.manifest.solana.caip2));
    const twice = await sql<{ payment_id: string }>`
      SELECT payment_id FROM settlement_batch_payments sp JOIN settlement_batches b ON b.id = sp.batch_id
      WHERE b.status = 'confirmed' GROUP BY payment_id HAVING count(*) > 1`.execute(db);
    expect(twice.rows).toEqual([]);
    const solanaSettlements = await db
      .selectFrom('solana_transactions')
      .select(['reference', 'status'])
      .where('purpose', '=', 'settlement')
      .where('status', '<>', 'expired')
      .execute();
    const solanaBatches = batches
      .filter((batch) => batch.network === devnet.manifest.solana.caip2)
      .map((batch) => batch.id);
    expect(solanaSettlements.map((entry) => entry.reference).sort()).toEqual([...solanaBatches].sort());

    const audit = await runCli(['audit'], { ...serviceEnv(), LOG_LEVEL: 'warn' });
    expect(audit.code, `${audit.stdout}\n${audit.stderr}`).toBe(0);
  }, 600_000);

  /**
   * A payment on `chain` succeeds while the service settles only when it starts (the next round is an hour away);
   * a base backup is taken; then the service settles it, so the collector's transfer is on chain and in no backup;
   * then the database is lost. Returns the merchant, what it was paid and the backup.
   */
  async function settledAfterOlderBackup(chain: 'evm' | 'solana', name: string) {
    await stopService();
    await startService({ SETTLEMENT_INTERVAL_MS: '3600000' });
    const shop = await merchantWithDestinations(chain === 'solana');
    const paymentId = await pay(shop.merchantId, chain === 'evm' ? 'erin' : 'alice', chain, 700);
    const deadline = Date.now() + 120_000;
    while (
      (await db.selectFrom('payments').select('status').where('id', '=', paymentId).executeTakeFirst())?.status !==
      'succeeded'
    ) {
      if (Date.now() > deadline) throw new Error(`${paymentId} did not succeed:\n${service?.output()}`);
      await sleep(500);
    }
    const olderBackup = await baseBackup(name);

    await stopService();
    await startService();
    const network = chain === 'evm' ? evmChain().caip2 : devnet.manifest.solana.caip2;
    await untilSettled(shop.merchantId, [network]);
    const batches = await db
      .selectFrom('settlement_batches')
      .select(['amount', 'tx_hash'])
      .where('merchant_id', '=', shop.merchantId)
      .where('status', '=', 'confirmed')
      .execute();
    const owed = batches.reduce((sum, batch) => sum + BigInt(batch.amount), 0n);
    const destination = chain === 'evm' ? shop.evmDestination : shop.solanaDestination;
    const held = () => (chain === 'evm' ? evmUsdcHeld(destination) : solanaUsdcHeld(destination));
    expect(await held()).toBe(owed);
    await stopService();
    await loseCluster();
    return { shop, owed, olderBackup, held, settledBy: batches[0]?.tx_hash };
  }

  it('refuses to send from the collector after a restore to a point older than its last transaction on chain', async () => {
    const { shop, owed, olderBackup } = await settledAfterOlderBackup('evm', 'backup-2');

    // Restored to the older point: the payment is succeeded and unsettled again, and its settlement's nonce free
    // in the journal. Journaled again it would be refused by the node, judged failed ("nonce used by a transaction
    // the relayer did not sign") and decided once more with the next nonce: paid twice.
    await restore(olderBackup, 'cluster-c', { archive_mode: 'off' }, false);
    const nonceBefore = await collectorNonce();
    const restored = await startService({ HEALTH_METRICS_INTERVAL_MS: '0' });
    await restored.waitForOutput(/that the database does not hold/, 60_000);
    const metrics = await scrape(restored);
    expect(metrics.value('paygate_collector_unjournaled_transactions', { network: evmChain().caip2 })).toBe(1);
    // Rounds of settlement go by (one a second) and the collector sends nothing on the network.
    await sleep(15_000);
    expect(await evmUsdcHeld(shop.evmDestination)).toBe(owed);
    expect(await collectorNonce()).toBe(nonceBefore);
    const journaledAfterRestore = await db
      .selectFrom('evm_transactions')
      .select('nonce')
      .where('chain', '=', evmChain().caip2)
      .where('nonce', '>=', (nonceBefore - 1n).toString())
      .execute();
    expect(journaledAfterRestore).toEqual([]);
    // Said once at error level, however many rounds were refused (each round's warning repeats it).
    const errors = restored
      .stdout()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { level: number; msg: string })
      .filter((entry) => entry.level >= 50);
    expect(errors, JSON.stringify(errors)).toHaveLength(1);
    expect(errors[0]).toMatchObject({ network: evmChain().caip2, missing: '1' });
    expect(errors[0]!.msg).toContain(
      `that the database does not hold (its nonce there is ${nonceBefore}, the journal's next ${nonceBefore - 1n})`,
    );

    // The operator's way on (README, Backups): the merchant the lost settlement paid is suspended, which holds its
    // batch still open, then the missing transaction is accepted.
    await stopService();
    const suspended = await runCli(['merchant', 'set-status', shop.merchantId, 'suspended'], serviceEnv());
    expect(suspended.code, suspended.stderr).toBe(0);
    const network = evmChain().caip2;
    const accepted = await runCli(['collector', 'accept-unjournaled', '--network', network], serviceEnv());
    expect(accepted.code, accepted.stderr).toBe(0);
    expect(JSON.parse(accepted.stdout)).toEqual({
      network,
      journalNonce: String(nonceBefore - 1n),
      chainNonce: String(nonceBefore),
      accepted: '1',
    });
    const again = await runCli(['collector', 'accept-unjournaled', '--network', network], serviceEnv());
    expect([again.code, again.stderr.trim()]).toEqual([
      1,
      `paygate: the journal holds every transaction the collector sent on ${network} (its nonce there is ${nonceBefore}, the journal's next ${nonceBefore}): nothing to accept`,
    ]);
    const resumed = await startService({ HEALTH_METRICS_INTERVAL_MS: '0' });
    await sleep(5_000);
    expect((await scrape(resumed)).value('paygate_collector_unjournaled_transactions', { network })).toBe(0);
    expect(await evmUsdcHeld(shop.evmDestination)).toBe(owed);
  }, 600_000);

  it('refuses to send from the collector on Solana after a restore to a point older than its last transaction there', async () => {
    const { shop, owed, olderBackup, held, settledBy } = await settledAfterOlderBackup('solana', 'backup-3');
    // No nonce on Solana: the settlement would be built again with a fresh blockhash and paid twice.
    await restore(olderBackup, 'cluster-d', { archive_mode: 'off' }, false);
    const network = devnet.manifest.solana.caip2;
    const restored = await startService({ HEALTH_METRICS_INTERVAL_MS: '0' });
    await restored.waitForOutput(/that the database does not hold/, 60_000);
    expect((await scrape(restored)).value('paygate_collector_unjournaled_transactions', { network })).toBe(1);
    await sleep(15_000);
    expect(await held()).toBe(owed);
    const settlementsAfterRestore = await db
      .selectFrom('solana_transactions')
      .select('signature')
      .where('purpose', '=', 'settlement')
      .where(
        'reference',
        'in',
        (await db.selectFrom('settlement_batches').select('id').where('merchant_id', '=', shop.merchantId).execute())
          .map((batch) => batch.id)
          .concat(['none']),
      )
      .execute();
    expect(settlementsAfterRestore).toEqual([]);
    const errors = restored
      .stdout()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { level: number; msg: string })
      .filter((entry) => entry.level >= 50);
    expect(errors, JSON.stringify(errors)).toHaveLength(1);
    expect(errors[0]).toMatchObject({ network, missing: '1' });
    expect(errors[0]!.msg).toContain(`that the database does not hold (the newest is ${settledBy})`);

    await stopService();
    const suspended = await runCli(['merchant', 'set-status', shop.merchantId, 'suspended'], serviceEnv());
    expect(suspended.code, suspended.stderr).toBe(0);
    const accepted = await runCli(['collector', 'accept-unjournaled', '--network', network], serviceEnv());
    expect(accepted.code, accepted.stderr).toBe(0);
    expect(JSON.parse(accepted.stdout)).toEqual({ network, accepted: '1', signatures: [settledBy] });
    const again = await runCli(['collector', 'accept-unjournaled', '--network', network], serviceEnv());
    expect([again.code, again.stderr.trim()]).toEqual([
      1,
      `paygate: the journal holds every transaction the collector signed on ${network}: nothing to accept`,
    ]);
    const resumed = await startService({ HEALTH_METRICS_INTERVAL_MS: '0' });
    await sleep(5_000);
    expect((await scrape(resumed)).value('paygate_collector_unjournaled_transactions', { network })).toBe(0);
    expect(await held()).toBe(owed);
    // Anyone may send the collector coin: a transaction it did not sign is not one missing.
    await devnet.fund({ solana: [collector.solana] });
    expect((await scrape(resumed)).value('paygate_collector_unjournaled_transactions', { network })).toBe(0);
  }, 600_000);
});
