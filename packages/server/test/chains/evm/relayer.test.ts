import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import {
  type Address,
  createWalletClient,
  encodeFunctionData,
  type Hex,
  http,
  keccak256,
  parseAbi,
  type PublicClient,
  toHex,
} from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { EvmClients } from '../../../src/chains/evm/clients.ts';
import { CollectorJournalBehindError } from '../../../src/chains/collectorJournalBehind.ts';
import { Relayer } from '../../../src/chains/evm/relayer.ts';
import { ensureNonceCounter, recordWithNextNonces, type SignedAttempt } from '../../../src/chains/evm/relayerStore.ts';
import { checkOpenTransactions, waitForRelayedOutcome } from '../../support/chainWaits.ts';
import { warningsInto } from '../../support/warnings.ts';
import { type EvmTestEnvironment, startEvmTestEnvironment } from './support/evmDevnet.ts';

const RELAYER_PROCESS = fileURLToPath(new URL('./support/relayerProcess.ts', import.meta.url));

interface RelayerChild {
  child: ChildProcess;
  /** The next JSON line the process prints. */
  nextLine(): Promise<Record<string, unknown>>;
  exited: Promise<number | null>;
}

describe('relayer', () => {
  let env: EvmTestEnvironment;
  const recipient = privateKeyToAccount(generatePrivateKey()).address;

  beforeAll(async () => {
    env = await startEvmTestEnvironment();
  });
  afterAll(() => env?.close());

  function startRelayerProcess(args: string[]): RelayerChild {
    const { BASE_URL: _viteBase, ...inherited } = process.env;
    const child = spawn(process.execPath, ['--import', 'tsx', RELAYER_PROCESS, ...args], {
      env: {
        ...inherited,
        DATABASE_URL: inject('databaseUrl'),
        RELAYER_NETWORKS: JSON.stringify(env.networks),
        RELAYER_KEY: env.collectorKey,
      },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let buffered = '';
    let errors = '';
    const waiting: ((line: Record<string, unknown>) => void)[] = [];
    const lines: Record<string, unknown>[] = [];
    child.stdout?.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      for (let end = buffered.indexOf('\n'); end >= 0; end = buffered.indexOf('\n')) {
        const line = JSON.parse(buffered.slice(0, end)) as Record<string, unknown>;
        buffered = buffered.slice(end + 1);
        const waiter = waiting.shift();
        if (waiter) waiter(line);
        else lines.push(line);
      }
    });
    child.stderr?.on('data', (chunk: Buffer) => (errors += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    return {
      child,
      exited,
      nextLine: () => {
        const line = lines.shift();
        if (line) return Promise.resolve(line);
        return new Promise((resolve, reject) => {
          waiting.push(resolve);
          void exited.then((code) => reject(new Error(`relayer process exited (${code}): ${errors}`)));
        });
      },
    };
  }

  async function kill(process: RelayerChild): Promise<void> {
    process.child.kill('SIGKILL');
    await process.exited;
  }

  /** A client of its own whose `eth_sendRawTransaction` calls are counted. */
  function countingSends(): { clients: EvmClients; sends: () => number } {
    let sends = 0;
    const clients = new EvmClients({
      onFetchRequest: async (request) => {
        const body = JSON.parse(await request.clone().text()) as { method: string } | { method: string }[];
        sends += (Array.isArray(body) ? body : [body]).filter(
          (call) => call.method === 'eth_sendRawTransaction',
        ).length;
      },
    });
    return { clients, sends: () => sends };
  }

  const minedNonce = (client: PublicClient) =>
    client.getTransactionCount({ address: env.collector, blockTag: 'latest' });

  async function nodeKnows(hash: Hex): Promise<boolean> {
    return env.client.getTransaction({ hash }).then(
      () => true,
      () => false,
    );
  }

  it('gives 50 concurrent submissions from two processes contiguous nonces, and all of them land', async () => {
    const firstNonce = await minedNonce(env.client);
    const other = startRelayerProcess(['submit', '25', recipient]);
    expect(await other.nextLine()).toEqual({ ready: true });

    other.child.stdin?.write('go\n');
    const [ours, theirs] = await Promise.all([
      Promise.all(
        Array.from({ length: 25 }, () =>
          env.relayer.submit({ chain: env.network.caip2, to: recipient, value: 1n, purpose: 'test_concurrency' }),
        ),
      ),
      other.nextLine(),
    ]);
    expect(await other.exited).toBe(0);
    const ids = [...ours.map((transaction) => transaction.id), ...(theirs.ids as string[])];
    expect(new Set(ids).size).toBe(50);

    const outcomes = await Promise.all(ids.map((id) => waitForRelayedOutcome(env, id)));
    expect(outcomes.map((outcome) => outcome.status)).toEqual(Array(50).fill('confirmed'));
    const rows = await env.db
      .selectFrom('evm_transactions')
      .select(['id', 'nonce', 'mined_hash'])
      .where('id', 'in', ids)
      .execute();
    const nonces = rows.map((row) => Number(row.nonce)).sort((a, b) => a - b);
    expect(nonces).toEqual(Array.from({ length: 50 }, (_, index) => firstNonce + index));
    for (const row of rows) {
      const onChain = await env.client.getTransaction({ hash: row.mined_hash as Hex });
      expect(onChain.nonce).toBe(Number(row.nonce));
    }
    expect(await minedNonce(env.client)).toBe(firstNonce + 50);
    expect(await env.client.getBalance({ address: recipient })).toBe(50n);
  });

  it('gives a transaction that cannot be signed or whose fee cannot be reserved no nonce, and the others of its batch consecutive ones', async () => {
    // A network no relayer or follower of this suite sends on, so these rows are never sent.
    const chain = 'eip155:990001';
    const from = privateKeyToAccount(generatePrivateKey()).address;
    await ensureNonceCounter(env.db, chain, from, 7n);
    const claim = (id: string, sign: (nonce: bigint) => Promise<SignedAttempt>) => ({
      transaction: {
        id,
        chain,
        from,
        to: recipient,
        data: '0x',
        value: 1n,
        gas: 21_000n,
        purpose: 'test_batch',
        paymentId: null,
      },
      sign,
      chainNonce: 7n,
    });
    const signed = async (nonce: bigint): Promise<SignedAttempt> => ({
      hash: keccak256(toHex(`${from}:${nonce}`)),
      rawTransaction: toHex(`raw ${nonce}`),
      maxFeePerGas: 2n,
      maxPriorityFeePerGas: 1n,
    });
    const batchId = Date.now().toString(36);
    const unfunded = `etx_d${batchId}`;
    const reserveFees = async () => async (transaction: { id: string }) => {
      if (transaction.id === unfunded) throw new Error('the operator holds too little for its fee');
    };
    const results = await recordWithNextNonces(
      env.db,
      [
        claim(`etx_a${batchId}`, signed),
        claim(`etx_b${batchId}`, () => Promise.reject(new Error('the key is unavailable'))),
        claim(unfunded, signed),
        claim(`etx_c${batchId}`, signed),
      ],
      reserveFees,
    );
    expect(results.map((result) => (result instanceof Error ? result.message : result.nonce))).toEqual([
      7n,
      'the key is unavailable',
      'the operator holds too little for its fee',
      8n,
    ]);
    const rows = await env.db
      .selectFrom('evm_transactions')
      .select(['id', 'nonce'])
      .where('chain', '=', chain)
      .where('from_address', '=', from.toLowerCase())
      .orderBy('nonce')
      .execute();
    expect(rows.map((row) => [row.id, Number(row.nonce)])).toEqual([
      [`etx_a${batchId}`, 7],
      [`etx_c${batchId}`, 8],
    ]);
    const counter = await env.db
      .selectFrom('evm_nonces')
      .select('next_nonce')
      .where('chain', '=', chain)
      .where('address', '=', from.toLowerCase())
      .executeTakeFirstOrThrow();
    expect(Number(counter.next_nonce)).toBe(9);
  });

  it('sends a transaction recorded by a process killed before it broadcast, exactly once, on reconcile', async () => {
    const firstNonce = await minedNonce(env.client);
    const crashed = startRelayerProcess(['record', recipient]);
    const recorded = (await crashed.nextLine()) as { id: string; hash: Hex; nonce: string };
    await kill(crashed);
    expect(Number(recorded.nonce)).toBe(firstNonce);
    expect(await nodeKnows(recorded.hash)).toBe(false);
    expect(
      await env.db.selectFrom('evm_transactions').select('status').where('id', '=', recorded.id).executeTakeFirst(),
    ).toEqual({ status: 'recorded' });

    const { clients, sends } = countingSends();
    const afterRestart = {
      ...env,
      relayer: new Relayer({ db: env.db, networks: env.networks, privateKey: env.collectorKey, clients }),
    };
    const report = await checkOpenTransactions(afterRestart);
    expect(report.sent).toEqual([recorded.hash]);
    expect(sends()).toBe(1);

    const outcome = await waitForRelayedOutcome(afterRestart, recorded.id);
    expect(outcome).toMatchObject({ status: 'confirmed', hash: recorded.hash });
    expect((await checkOpenTransactions(afterRestart)).sent).toEqual([]);
    expect(sends()).toBe(1);
    expect(await minedNonce(env.client)).toBe(firstNonce + 1);
  });

  it('finds a transaction broadcast by a process killed afterwards instead of sending it again', async () => {
    const firstNonce = await minedNonce(env.client);
    const crashed = startRelayerProcess(['record-broadcast', recipient]);
    const recorded = (await crashed.nextLine()) as { id: string; hash: Hex };
    await kill(crashed);
    expect(await nodeKnows(recorded.hash)).toBe(true);

    const { clients, sends } = countingSends();
    const afterRestart = {
      ...env,
      relayer: new Relayer({ db: env.db, networks: env.networks, privateKey: env.collectorKey, clients }),
    };
    expect((await checkOpenTransactions(afterRestart)).sent).toEqual([]);
    const outcome = await waitForRelayedOutcome(afterRestart, recorded.id);

    expect(outcome).toMatchObject({ status: 'confirmed', hash: recorded.hash });
    expect(sends()).toBe(0);
    expect(await minedNonce(env.client)).toBe(firstNonce + 1);
  });

  it('finds a transaction sent just before a crash that kept it from being marked as sent', async () => {
    const firstNonce = await minedNonce(env.client);
    const crashed = startRelayerProcess(['record', recipient]);
    const recorded = (await crashed.nextLine()) as { id: string; hash: Hex };
    await kill(crashed);
    const { raw_transaction } = await env.db
      .selectFrom('evm_transaction_attempts')
      .select('raw_transaction')
      .where('hash', '=', recorded.hash)
      .executeTakeFirstOrThrow();
    await env.client.sendRawTransaction({ serializedTransaction: raw_transaction as Hex });

    const { clients, sends } = countingSends();
    const afterRestart = {
      ...env,
      relayer: new Relayer({ db: env.db, networks: env.networks, privateKey: env.collectorKey, clients }),
    };
    await checkOpenTransactions(afterRestart);
    const outcome = await waitForRelayedOutcome(afterRestart, recorded.id);

    expect(outcome).toMatchObject({ status: 'confirmed', hash: recorded.hash });
    expect(sends()).toBe(0);
    expect(await minedNonce(env.client)).toBe(firstNonce + 1);
  });

  it('records nothing and spends no nonce when the call would revert', async () => {
    const before = await env.db
      .selectFrom('evm_nonces')
      .select('next_nonce')
      .where('address', '=', env.collector.toLowerCase())
      .where('chain', '=', env.network.caip2)
      .executeTakeFirstOrThrow();
    const usdc = env.token('USDC').address as Address;
    // transferFrom without an allowance reverts in FiatToken.
    const data =
      `0x23b872dd${env.buyer('alice').address.slice(2).padStart(64, '0')}${recipient.slice(2).padStart(64, '0')}${'1'.padStart(64, '0')}` as Hex;
    await expect(
      env.relayer.submit({ chain: env.network.caip2, to: usdc, data, purpose: 'test_revert' }),
    ).rejects.toThrow();
    expect(
      await env.db
        .selectFrom('evm_nonces')
        .select('next_nonce')
        .where('address', '=', env.collector.toLowerCase())
        .where('chain', '=', env.network.caip2)
        .executeTakeFirstOrThrow(),
    ).toEqual(before);
  });

  it('replaces a stuck transaction with the same nonce and higher fees; one of them lands', async () => {
    const firstNonce = await minedNonce(env.client);
    await env.client.request({ method: 'evm_setIntervalMining' as 'eth_chainId', params: [0] as never });
    let stuck: Awaited<ReturnType<Relayer['submit']>>;
    try {
      stuck = await env.relayer.submit({ chain: env.network.caip2, to: recipient, value: 1n, purpose: 'test_stuck' });
      const impatient = new Relayer({
        db: env.db,
        networks: env.networks,
        privateKey: env.collectorKey,
        clients: env.clients,
        stuckAfterMs: 0,
      });
      const report = await checkOpenTransactions({ ...env, relayer: impatient });
      expect(report.replaced).toHaveLength(1);
      expect(report.replaced[0]?.id).toBe(stuck.id);
      expect(report.sent).toEqual([report.replaced[0]?.hash]);
    } finally {
      await env.client.request({ method: 'evm_setIntervalMining' as 'eth_chainId', params: [1] as never });
    }

    const outcome = await waitForRelayedOutcome(env, stuck.id);
    const attempts = await env.db
      .selectFrom('evm_transaction_attempts')
      .selectAll()
      .where('transaction_id', '=', stuck.id)
      .orderBy('created_at')
      .execute();
    expect(attempts).toHaveLength(2);
    const [original, replacement] = attempts as [(typeof attempts)[0], (typeof attempts)[0]];
    expect(BigInt(replacement.max_fee_per_gas)).toBeGreaterThan(BigInt(original.max_fee_per_gas));
    expect(BigInt(replacement.max_priority_fee_per_gas)).toBeGreaterThan(BigInt(original.max_priority_fee_per_gas));
    expect(outcome).toMatchObject({ status: 'confirmed', hash: replacement.hash });
    expect(attempts.map((attempt) => attempt.status)).toEqual(['replaced', 'mined']);
    expect(await minedNonce(env.client)).toBe(firstNonce + 1);
  });
  it('reports a transaction that reverts on chain as failed', async () => {
    const usdc = env.token('USDC').address as Address;
    const abi = parseAbi([
      'function balanceOf(address) view returns (uint256)',
      'function transfer(address to, uint256 value) returns (bool)',
    ]);
    const balance = await env.client.readContract({
      address: usdc,
      abi,
      functionName: 'balanceOf',
      args: [env.collector],
    });
    const data = encodeFunctionData({ abi, functionName: 'transfer', args: [recipient, balance] });
    // Both pass their gas estimate; only the first can still pay when it is mined.
    const [first, second] = await Promise.all([
      env.relayer.record({ chain: env.network.caip2, to: usdc, data, purpose: 'test_revert' }),
      env.relayer.record({ chain: env.network.caip2, to: usdc, data, purpose: 'test_revert' }),
    ]);
    await env.relayer.broadcast(first.id);
    await env.relayer.broadcast(second.id);

    const outcomes = await Promise.all([waitForRelayedOutcome(env, first.id), waitForRelayedOutcome(env, second.id)]);

    expect(outcomes.map((outcome) => outcome.status).sort()).toEqual(['confirmed', 'failed']);
    const failed = outcomes.find((outcome) => outcome.status === 'failed');
    expect(failed).toMatchObject({ reason: 'reverted', receipt: { status: 'reverted' } });
    expect(await env.client.readContract({ address: usdc, abi, functionName: 'balanceOf', args: [recipient] })).toBe(
      balance,
    );
  });

  it('enters the gas of a transaction whose receipt was recorded before the ledger when it becomes final', async () => {
    const deep = env.networks.map((network) => ({ ...network, confirmations: 1_000 }));
    const patient = new Relayer({ db: env.db, networks: deep, privateKey: env.collectorKey, clients: env.clients });
    const { id, hash } = await patient.submit({
      chain: env.network.caip2,
      to: recipient,
      value: 1n,
      purpose: 'test_fee_before_ledger',
    });
    const receipt = await env.client.waitForTransactionReceipt({ hash, pollingInterval: 200 });
    await checkOpenTransactions({ ...env, relayer: patient });
    // Its receipt recorded while it was not deep enough, by a service from before the ledger: no fee stored.
    await sql`UPDATE evm_transactions SET fee_paid = NULL WHERE id = ${id}`.execute(env.db);
    const stored = await env.db
      .selectFrom('evm_transactions')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(stored).toMatchObject({ status: 'broadcast', receipt_block_hash: receipt.blockHash, fee_paid: null });
    // The most it could cost (its gas limit at its max fee per gas) was taken from the operator when it was journaled.
    const { gas, max_fee_per_gas: maxFeePerGas } = await env.db
      .selectFrom('evm_transactions')
      .innerJoin('evm_transaction_attempts', 'evm_transaction_attempts.transaction_id', 'evm_transactions.id')
      .select(['evm_transactions.gas', 'evm_transaction_attempts.max_fee_per_gas'])
      .where('evm_transactions.id', '=', id)
      .executeTakeFirstOrThrow();
    const reserved = BigInt(gas) * BigInt(maxFeePerGas);
    const ether = env.network.tokens.find((token) => token.method === 'native')?.caip19;
    const reservation = [
      { entry: `network_fee:${id}:reserved`, account: 'network_fees', asset: ether, amount: (-reserved).toString() },
      { entry: `network_fee:${id}:reserved`, account: 'operator', asset: ether, amount: reserved.toString() },
    ];
    const entry = () =>
      env.db
        .selectFrom('ledger_entries')
        .select(['entry', 'account', 'asset', 'amount'])
        .where('entry', 'in', [`network_fee:${id}`, `network_fee:${id}:reserved`, `network_fee:${id}:settled`])
        .orderBy('entry')
        .orderBy('account')
        .execute();

    // The receipt cannot be read: it is not made final in this pass.
    const nodeDown = {
      for: () => ({ getTransactionReceipt: () => Promise.reject(new Error('the node is down')) }),
    } as unknown as EvmClients;
    const unlucky = new Relayer({ db: env.db, networks: deep, privateKey: env.collectorKey, clients: nodeDown });
    await expect(unlucky.finishIncluded(stored)).rejects.toThrow('the node is down');
    expect(
      await env.db.selectFrom('evm_transactions').select('status').where('id', '=', id).executeTakeFirst(),
    ).toEqual({ status: 'broadcast' });
    expect(await entry()).toEqual(reservation);

    await patient.finishIncluded(stored);
    const fee = receipt.gasUsed * receipt.effectiveGasPrice;
    expect(fee).toBeGreaterThan(0n);
    expect(
      await env.db
        .selectFrom('evm_transactions')
        .select(['status', 'fee_paid'])
        .where('id', '=', id)
        .executeTakeFirst(),
    ).toEqual({ status: 'confirmed', fee_paid: fee.toString() });
    // The fee left the collector, paid by the operator: the reservation's rest went back to it.
    expect(fee).toBeLessThan(reserved);
    expect(await entry()).toEqual([
      { entry: `network_fee:${id}`, account: 'collector', asset: ether, amount: (-fee).toString() },
      { entry: `network_fee:${id}`, account: 'network_fees', asset: ether, amount: fee.toString() },
      ...reservation,
      {
        entry: `network_fee:${id}:settled`,
        account: 'network_fees',
        asset: ether,
        amount: (reserved - fee).toString(),
      },
      { entry: `network_fee:${id}:settled`, account: 'operator', asset: ether, amount: (fee - reserved).toString() },
    ]);
  });

  it('notices a reorg that removes a mined transaction, and lands it again from the same bytes', async () => {
    const deep = env.networks.map((network) => ({ ...network, confirmations: 1_000 }));
    const patient = new Relayer({ db: env.db, networks: deep, privateKey: env.collectorKey, clients: env.clients });
    const deepOnNetwork = { ...env, relayer: patient };
    const { id, hash } = await patient.submit({
      chain: env.network.caip2,
      to: recipient,
      value: 1n,
      purpose: 'test_reorg',
    });
    const receipt = await env.client.waitForTransactionReceipt({ hash, pollingInterval: 200 });
    await checkOpenTransactions(deepOnNetwork);
    expect(
      await env.db
        .selectFrom('evm_transactions')
        .select(['status', 'receipt_block_hash'])
        .where('id', '=', id)
        .executeTakeFirst(),
    ).toEqual({
      status: 'broadcast',
      receipt_block_hash: receipt.blockHash,
    });

    const latest = await env.client.getBlockNumber({ cacheTime: 0 });
    await env.client.request({
      method: 'anvil_rollback' as 'eth_chainId',
      params: [Number(latest - receipt.blockNumber + 1n)] as never,
    });
    const report = await checkOpenTransactions(deepOnNetwork);

    expect(report.reorged).toEqual([id]);
    const again = await env.client.waitForTransactionReceipt({ hash, pollingInterval: 200 });
    expect(again.blockHash).not.toBe(receipt.blockHash);
    await checkOpenTransactions(deepOnNetwork);
    expect(
      await env.db
        .selectFrom('evm_transactions')
        .select(['status', 'receipt_block_hash'])
        .where('id', '=', id)
        .executeTakeFirst(),
    ).toEqual({
      status: 'broadcast',
      receipt_block_hash: again.blockHash,
    });
  });
  it('refuses to journal a transaction, and says so once, while the collector has sent one the journal does not hold; sends again once the operator accepts it', async () => {
    const messages: string[] = [];
    const relayer = new Relayer({
      db: env.db,
      networks: env.networks,
      privateKey: env.collectorKey,
      clients: env.clients,
      log: warningsInto(messages),
    });
    const request = { chain: env.network.caip2, to: recipient, value: 1n, purpose: 'test_journal_behind' };
    const journaled = await relayer.submit(request);
    await waitForRelayedOutcome(env, journaled.id);
    expect(await relayer.unjournaledTransactions(env.network.caip2)).toBe(0n);
    const counter = () =>
      env.db
        .selectFrom('evm_nonces')
        .select('next_nonce')
        .where('chain', '=', env.network.caip2)
        .where('address', '=', env.collector.toLowerCase())
        .executeTakeFirstOrThrow();
    const journalBefore = await counter();

    // The collector's key signs a transfer the journal never sees.
    const wallet = createWalletClient({
      account: privateKeyToAccount(env.collectorKey),
      transport: http(env.network.rpcUrl),
    });
    await wallet.sendTransaction({ to: recipient, value: 1n, chain: null });

    for (let attempt = 0; attempt < 3; attempt += 1)
      await expect(relayer.submit(request)).rejects.toThrow(
        `the collector sent 1 transaction(s) on ${env.network.caip2} that the database does not hold (its nonce there is ${BigInt(journalBefore.next_nonce) + 1n}, the journal's next ${journalBefore.next_nonce})`,
      );
    await expect(relayer.submit(request)).rejects.toBeInstanceOf(CollectorJournalBehindError);
    expect(await counter()).toEqual(journalBefore);
    const rows = await env.db
      .selectFrom('evm_transactions')
      .select('id')
      .where('purpose', '=', 'test_journal_behind')
      .execute();
    expect(rows.map((row) => row.id)).toEqual([journaled.id]);
    expect(messages.filter((message) => message.includes('that the database does not hold'))).toHaveLength(1);
    expect(await relayer.unjournaledTransactions(env.network.caip2)).toBe(1n);

    const chainNonce = BigInt(journalBefore.next_nonce) + 1n;
    expect(await relayer.acceptUnjournaled(env.network.caip2)).toEqual({
      journalNonce: BigInt(journalBefore.next_nonce),
      chainNonce,
    });
    expect(await relayer.unjournaledTransactions(env.network.caip2)).toBe(0n);
    const after = await relayer.submit(request);
    expect(await waitForRelayedOutcome(env, after.id)).toMatchObject({ status: 'confirmed' });
    expect((await env.client.getTransaction({ hash: after.hash })).nonce).toBe(Number(chainNonce));
    // Accepting again changes nothing: the journal holds every transaction now.
    expect(await relayer.acceptUnjournaled(env.network.caip2)).toEqual({
      journalNonce: chainNonce + 1n,
      chainNonce: chainNonce + 1n,
    });
  });
});
