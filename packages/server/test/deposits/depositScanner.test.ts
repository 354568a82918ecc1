import { type Address, erc20Abi, type Hex, numberToHex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { insertMerchantWithPayments } from '../support/fixtures.ts';
import { isolatedTestDatabase } from '../support/isolatedDatabase.ts';
import { nodeFailing } from '../support/nodeFailing.ts';
import { newPartner } from '../support/testServer.ts';
import { EvmClients } from '../../src/chains/evm/clients.ts';
import { DepositScanner, TRANSFER_TOPIC } from '../../src/chains/evm/deposits/depositScanner.ts';
import { type DepositTransfer, NATIVE_TOKEN } from '../../src/chains/evm/deposits/nativeTransfers.ts';
import type { Db } from '../../src/db/database.ts';
import { withDepositTables } from '../../src/deposits/depositTables.ts';
import { type EvmTestEnvironment, startEvmTestEnvironment } from '../chains/evm/support/evmDevnet.ts';
import { warningsInto } from '../support/warnings.ts';

describe('deposit scanner: one eth_getLogs per range of blocks at depth, whatever the number of open addresses', () => {
  let env: EvmTestEnvironment;
  const chain = 'eip155:31337';

  beforeAll(async () => {
    env = await startEvmTestEnvironment();
  }, 120_000);
  afterAll(() => env?.close());

  /** `count` unpaid payments of a new merchant, each with a USDC deposit quote at an address of its own, watched. */
  async function openPayments(name: string, count: number) {
    const { db: plain } = await isolatedTestDatabase();
    const db = withDepositTables(plain);
    const paymentIds = Array.from({ length: count }, (_, index) => `pay_${name}_${index}`);
    await insertMerchantWithPayments(plain, `mrch_deposit_${name}`, paymentIds);
    const addresses = paymentIds.map(() => privateKeyToAccount(generatePrivateKey()).address.toLowerCase());
    await db
      .insertInto('evm_deposit_quotes')
      .values(
        paymentIds.map((id, index) => ({
          payment_id: id,
          chain,
          asset: env.token('USDC').caip19,
          address: addresses[index] as string,
          amount: 10_000_000n,
          watch_until: new Date(Date.now() + 600_000),
        })),
      )
      .execute();
    return { plain, paymentIds, addresses };
  }

  it('finds the transfer to one of 600 open addresses with 2 eth_getLogs calls (500 addresses a call) over a long range, then 1 per step at the head', async () => {
    const { plain, paymentIds, addresses } = await openPayments('scan', 600);

    const methods: string[] = [];
    const clients = new EvmClients({
      onFetchRequest: async (request) => {
        const body = JSON.parse(await request.clone().text()) as { method: string } | { method: string }[];
        for (const call of Array.isArray(body) ? body : [body]) methods.push(call.method);
      },
    });
    const found: DepositTransfer[] = [];
    const scanner = new DepositScanner({
      db: plain,
      network: env.network,
      client: clients.for(env.network),
      clock: { now: () => new Date() },
      onDeposit: async (_trx, transfer) => {
        found.push(transfer);
      },
    });
    const target = addresses[537] as Address;
    const alice = env.buyer('alice');
    const hash = await alice.wallet.writeContract({
      chain: null,
      account: alice.account,
      address: env.token('USDC').address as Address,
      abi: erc20Abi,
      functionName: 'transfer',
      args: [target, 1_234n],
    });
    const receipt = await env.client.waitForTransactionReceipt({ hash: hash as Hex, pollingInterval: 100 });

    const first = await scanner.step(receipt.blockNumber);
    expect(first.logCalls).toBe(2);
    expect(methods).toEqual(['eth_getLogs', 'eth_getLogs']);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({
      address: target,
      paymentId: paymentIds[537],
      amount: 1_234n,
      txHash: hash.toLowerCase(),
      from: alice.address.toLowerCase(),
      token: env.token('USDC').address.toLowerCase(),
    });

    // The same head again: nothing new at depth, no call at all; the transfer is not reported twice.
    methods.length = 0;
    expect((await scanner.step(receipt.blockNumber)).logCalls).toBe(0);
    expect(methods).toEqual([]);
    expect(found).toHaveLength(1);

    // A few new blocks, as when following the head: one call for the network's tokens whatever the number of open
    // addresses, the recipient checked here.
    const next = await alice.wallet.writeContract({
      chain: null,
      account: alice.account,
      address: env.token('USDT').address as Address,
      abi: erc20Abi,
      functionName: 'transfer',
      args: [addresses[12] as Address, 777n],
    });
    const nextReceipt = await env.client.waitForTransactionReceipt({ hash: next as Hex, pollingInterval: 100 });
    methods.length = 0;
    expect((await scanner.step(nextReceipt.blockNumber)).logCalls).toBe(1);
    expect(methods).toEqual(['eth_getLogs']);
    expect(found.slice(1)).toEqual([
      expect.objectContaining({
        paymentId: paymentIds[12],
        amount: 777n,
        token: env.token('USDT').address.toLowerCase(),
      }),
    ]);
  });

  it('records a transfer of a token the network does not list to one of 600 open addresses within 100 blocks: one call per 500 addresses then, one per step meanwhile', async () => {
    const { plain, paymentIds, addresses } = await openPayments('unlisted', 600);
    const found: DepositTransfer[] = [];
    const scanner = new DepositScanner({
      db: plain,
      network: env.network,
      client: env.client,
      clock: { now: () => new Date() },
      onDeposit: async (_trx, transfer) => {
        found.push(transfer);
      },
    });
    await scanner.step(await env.client.getBlockNumber());
    // A contract the network does not list logs an ERC-20 Transfer of 55 to one open address from its constructor.
    const target = addresses[321] as string;
    const word = (hex: string) => hex.replace(/^0x/, '').padStart(64, '0');
    const alice = env.buyer('alice');
    const hash = await alice.wallet.sendTransaction({
      chain: null,
      account: alice.account,
      data: `0x7f${word('0x37')}600052${['7f', word(target), '7f', word(alice.address), '7f', word(TRANSFER_TOPIC)].join('')}60206000a300`,
    });
    const receipt = await env.client.waitForTransactionReceipt({ hash, pollingInterval: 100 });
    expect(receipt.logs).toHaveLength(1);
    const logCalls: number[] = [];
    let head = receipt.blockNumber;
    while (!found.length && logCalls.length < 200) {
      logCalls.push((await scanner.step(head)).logCalls);
      await env.client.request<{ Parameters: [Hex]; ReturnType: null }>({ method: 'anvil_mine', params: ['0x1'] });
      head = await env.client.getBlockNumber({ cacheTime: 0 });
    }
    expect(found).toEqual([
      expect.objectContaining({
        paymentId: paymentIds[321],
        token: (receipt.contractAddress as string).toLowerCase(),
        amount: 55n,
        txHash: hash.toLowerCase(),
      }),
    ]);
    // Each step read the listed tokens' logs only (one call), until the one that read the last 100 blocks or so by
    // recipient as well (two calls more); the read then keeps up again.
    expect(logCalls.slice(0, -1).every((calls) => calls <= 1)).toBe(true);
    expect(logCalls.at(-1)).toBe(3);
    expect(logCalls.length).toBeGreaterThan(50);
    const cursor = await withDepositTables(plain)
      .selectFrom('evm_deposit_cursors')
      .select('recipients_next_block')
      .executeTakeFirstOrThrow();
    expect(cursor.recipients_next_block).toBeNull();
  });

  it('ignores Transfer logs not shaped as an ERC-20 transfer and goes on to the real one after them', async () => {
    const { db: plain } = await isolatedTestDatabase();
    const partner = await newPartner(plain);
    await plain
      .insertInto('merchants')
      .values({ id: 'mrch_crafted', partner_id: partner.partnerId, name: 'Crafted', email: 'crafted@shop.example' })
      .execute();
    await plain
      .insertInto('payments')
      .values({
        id: 'pay_crafted',
        partner_id: partner.partnerId,
        merchant_id: 'mrch_crafted',
        reference_id: 'crafted',
        fiat_currency: 'USD',
        fiat_value: '1000',
        expires_at: new Date(Date.now() + 600_000),
      })
      .execute();
    const target = privateKeyToAccount(generatePrivateKey()).address;
    await withDepositTables(plain)
      .insertInto('evm_deposit_quotes')
      .values({
        payment_id: 'pay_crafted',
        chain,
        asset: env.token('USDC').caip19,
        address: target.toLowerCase(),
        amount: 10_000_000n,
        watch_until: new Date(Date.now() + 600_000),
      })
      .execute();
    const found: DepositTransfer[] = [];
    const scanner = new DepositScanner({
      db: plain,
      network: env.network,
      client: env.client,
      clock: { now: () => new Date() },
      onDeposit: async (_trx, transfer) => {
        found.push(transfer);
      },
    });
    const alice = env.buyer('alice');
    const word = (hex: string) => hex.replace(/^0x/, '').padStart(64, '0');
    /** Init code that logs Transfer(from, target) with `data` (whole 32-byte words) in its constructor, then stops. */
    const loggingInitCode = (from: string, data: string[]): Hex => {
      const stores = data.map((value, index) => `7f${word(value)}60${(index * 32).toString(16).padStart(2, '0')}52`);
      const log = `7f${word(target)}7f${word(from)}7f${word(TRANSFER_TOPIC)}60${(data.length * 32).toString(16).padStart(2, '0')}6000a300`;
      return `0x${stores.join('')}${log}`;
    };
    const deploy = async (initCode: Hex) => {
      const hash = await alice.wallet.sendTransaction({ chain: null, account: alice.account, data: initCode });
      return env.client.waitForTransactionReceipt({ hash, pollingInterval: 100 });
    };
    // An amount wider than 256 bits (which no numeric column holds), a zero amount, and an address topic with bits
    // above its 20 bytes.
    const wide = await deploy(loggingInitCode(alice.address, [`0x${'ff'.repeat(32)}`, `0x${'ff'.repeat(32)}`]));
    expect(wide.logs).toHaveLength(1);
    await deploy(loggingInitCode(alice.address, ['0x00']));
    await deploy(loggingInitCode(`0x01${'00'.repeat(11)}${alice.address.slice(2)}`, ['0x05']));
    const hash = await alice.wallet.writeContract({
      chain: null,
      account: alice.account,
      address: env.token('USDC').address as Address,
      abi: erc20Abi,
      functionName: 'transfer',
      args: [target, 4_321n],
    });
    const receipt = await env.client.waitForTransactionReceipt({ hash: hash as Hex, pollingInterval: 100 });

    await scanner.step(receipt.blockNumber);
    expect(found.map((transfer) => [transfer.txHash, transfer.amount])).toEqual([[hash.toLowerCase(), 4_321n]]);
  });

  /** A scanner of the first chain reading through the node at `nodeUrl`, and the deposits it hands over. */
  function scannerThrough(db: Db, nodeUrl: string, warnings?: string[]) {
    const found: DepositTransfer[] = [];
    const network = { ...env.network, rpcUrl: nodeUrl };
    const scanner = new DepositScanner({
      db,
      network,
      client: new EvmClients().for(network),
      clock: { now: () => new Date() },
      ...(warnings ? { log: warningsInto(warnings) } : {}),
      onDeposit: async (_trx, transfer) => {
        found.push(transfer);
      },
    });
    return { scanner, found };
  }

  /** A payment of a new merchant taking the native coin at a deposit address of its own, watched. */
  async function openNativePayment(name: string) {
    const { db: plain } = await isolatedTestDatabase();
    const partner = await newPartner(plain);
    await plain
      .insertInto('merchants')
      .values({ id: `mrch_${name}`, partner_id: partner.partnerId, name: 'Untraced', email: 'untraced@shop.example' })
      .execute();
    await plain
      .insertInto('payments')
      .values({
        id: `pay_${name}`,
        partner_id: partner.partnerId,
        merchant_id: `mrch_${name}`,
        reference_id: name,
        fiat_currency: 'USD',
        fiat_value: '1000',
        expires_at: new Date(Date.now() + 600_000),
      })
      .execute();
    const target = privateKeyToAccount(generatePrivateKey()).address;
    const eth = env.network.tokens.find((token) => token.method === 'native')!;
    await withDepositTables(plain)
      .insertInto('evm_deposit_quotes')
      .values({
        payment_id: `pay_${name}`,
        chain,
        asset: eth.caip19,
        address: target.toLowerCase(),
        amount: 1_000_000_000n,
        watch_until: new Date(Date.now() + 600_000),
      })
      .execute();
    return { plain, target };
  }

  /**
   * A payment taking the native coin on a node whose traces fail with `error`; two plain transfers to its address,
   * each read by a step of its own. Returns what was found, the warnings, and the failed trace calls of each step.
   */
  async function untracedNativeTransfers(name: string, error: { code: number; message: string }) {
    const { plain, target } = await openNativePayment(name);
    const node = await nodeFailing('debug_traceBlockByNumber', env.network.rpcUrl as string, error);
    onTestFinished(() => node.close());
    const warnings: string[] = [];
    const { scanner, found } = scannerThrough(plain, node.url, warnings);
    // The follower has read every block so far (a native-coin step reads 50 blocks, and this chain is longer).
    await withDepositTables(plain)
      .insertInto('evm_deposit_cursors')
      .values({ chain, next_block: (await env.client.getBlockNumber({ cacheTime: 0 })) + 1n })
      .execute();
    const alice = env.buyer('alice');
    const send = async () => {
      const hash = await alice.wallet.sendTransaction({
        chain: null,
        account: alice.account,
        to: target,
        value: 1_000_000_000n,
      });
      return { hash, receipt: await env.client.waitForTransactionReceipt({ hash, pollingInterval: 100 }) };
    };
    const refusedPerStep: number[] = [];
    const step = async (head: bigint) => {
      const before = node.refused();
      const outcome = await scanner.step(head).then(
        () => 'read',
        (failure: Error) => failure.message,
      );
      refusedPerStep.push(node.refused() - before);
      return outcome;
    };
    const first = await send();
    const outcomes = [await step(first.receipt.blockNumber)];
    if (outcomes[0] !== 'read') outcomes.push(await step(first.receipt.blockNumber));
    const second = await send();
    outcomes.push(await step(second.receipt.blockNumber));
    return { first, second, found, warnings, outcomes, refusedPerStep };
  }

  it('reads plain native-coin transfers from the blocks when the node serves no call traces, and says so once', async () => {
    const { first, second, found, warnings, outcomes, refusedPerStep } = await untracedNativeTransfers('untraced', {
      code: -32601,
      message: 'the method debug_traceBlockByNumber does not exist/is not available',
    });
    // Asked in the first step (once per block of its range: the devnet can mine an empty block beside the transfer);
    // the node is not asked again for a while.
    expect(outcomes).toEqual(['read', 'read']);
    expect(refusedPerStep[0]).toBeGreaterThan(0);
    expect(refusedPerStep[1]).toBe(0);
    expect(found.map((transfer) => [transfer.txHash, transfer.token, transfer.logIndex, transfer.amount])).toEqual([
      [first.hash.toLowerCase(), NATIVE_TOKEN, -1, 1_000_000_000n],
      [second.hash.toLowerCase(), NATIVE_TOKEN, -1, 1_000_000_000n],
    ]);
    expect(warnings).toEqual([expect.stringMatching(/without call traces \(the node serves no call traces\)/)]);
  });

  it('reads a range the node cannot trace the plain way after one more try, so the follower goes on', async () => {
    const { first, second, found, warnings, outcomes, refusedPerStep } = await untracedNativeTransfers('stateless', {
      code: -32000,
      message: 'historical state not available in path scheme yet',
    });
    // The first step fails and leaves its range; the next reads it without traces; each later range is tried again.
    expect(outcomes).toEqual([expect.stringContaining('historical state'), 'read', 'read']);
    expect(refusedPerStep.every((calls) => calls >= 1)).toBe(true);
    expect(found.map((transfer) => [transfer.txHash, transfer.logIndex])).toEqual([
      [first.hash.toLowerCase(), -1],
      [second.hash.toLowerCase(), -1],
    ]);
    expect(warnings).toEqual([expect.stringMatching(/without call traces \(.*historical state not available/)]);
  });
  it('traces each block at depth once: after a trace fails, the next step traces only what it did not trace', async () => {
    const { plain, target } = await openNativePayment('retraced');
    const alice = env.buyer('alice');
    const send = async () => {
      const hash = await alice.wallet.sendTransaction({ chain: null, account: alice.account, to: target, value: 7n });
      return env.client.waitForTransactionReceipt({ hash, pollingInterval: 100 });
    };
    const from = (await env.client.getBlockNumber({ cacheTime: 0 })) + 1n;
    await withDepositTables(plain).insertInto('evm_deposit_cursors').values({ chain, next_block: from }).execute();
    const first = await send();
    // The second transfer in a later trace request than the first (five blocks to a request).
    while ((await env.client.getBlockNumber({ cacheTime: 0 })) < first.blockNumber + 5n)
      await new Promise((resolve) => setTimeout(resolve, 200));
    const second = await send();
    // A node that cannot trace the second transfer's block once, as one missing a block's state for a moment.
    let refusedOnce = false;
    const node = await nodeFailing(
      (call) => {
        const failing =
          !refusedOnce &&
          call.method === 'debug_traceBlockByNumber' &&
          call.params?.[0] === numberToHex(second.blockNumber);
        refusedOnce ||= failing;
        return failing;
      },
      env.network.rpcUrl as string,
      { code: -32000, message: 'missing trie node' },
    );
    onTestFinished(() => node.close());
    const { scanner, found } = scannerThrough(plain, node.url);

    await expect(scanner.step(second.blockNumber)).rejects.toThrow(/missing trie node/);
    expect(found.filter((transfer) => transfer.token === NATIVE_TOKEN)).toEqual([]);
    await scanner.step(second.blockNumber);

    expect(found.map((transfer) => [transfer.txHash, transfer.amount])).toEqual([
      [first.transactionHash.toLowerCase(), 7n],
      [second.transactionHash.toLowerCase(), 7n],
    ]);
    const tracesOf = new Map<string, number>();
    for (const call of node.calls().filter((call) => call.method === 'debug_traceBlockByNumber')) {
      const block = call.params?.[0] as string;
      tracesOf.set(block, (tracesOf.get(block) ?? 0) + 1);
    }
    const range = Array.from({ length: Number(second.blockNumber - from + 1n) }, (_, index) =>
      numberToHex(from + BigInt(index)),
    );
    expect(Object.fromEntries(tracesOf)).toEqual(
      Object.fromEntries(range.map((block) => [block, block === numberToHex(second.blockNumber) ? 2 : 1])),
    );
    const cursor = await withDepositTables(plain)
      .selectFrom('evm_deposit_cursors')
      .select('next_block')
      .where('chain', '=', chain)
      .executeTakeFirstOrThrow();
    expect(BigInt(cursor.next_block)).toBe(second.blockNumber + 1n);
  });
});
