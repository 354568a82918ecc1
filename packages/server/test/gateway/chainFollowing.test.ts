import { createPublicClient, createWalletClient, type Hex, http, type PublicClient } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type GatewayTestbed,
  sendTransactionAsWallet,
  signTypedDataAsWallet,
  startGatewayTestbed,
} from './support/gatewayTestbed.ts';

const results = (...values: string[]) => values.map((value) => ({ type: 'walletRpc', data: [value] }));
const symbolOf = (option: any): string => option.amount.display.assetSymbol;

async function until<T>(
  what: string,
  look: () => Promise<T | null | undefined | false>,
  timeoutMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = await look();
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function optionIn(bed: GatewayTestbed, paymentId: string, buyer: string, symbol: string): Promise<any> {
  const response = await bed.gateway(paymentId, '/options', { accounts: [bed.evmAccount(buyer)] });
  expect(response.status, response.text).toBe(200);
  const option = response.body.options.find((candidate: any) => symbolOf(candidate) === symbol);
  expect(option, `no ${symbol} option`).toBeDefined();
  return option;
}

async function statusOf(bed: GatewayTestbed, paymentId: string): Promise<any> {
  return (await bed.gateway(paymentId, '/status')).body;
}

describe('a reorg below the confirmation depth', () => {
  let bed: GatewayTestbed;
  let client: PublicClient;
  const rpc = (method: string, params: unknown[] = []) =>
    client.request({ method: method as 'eth_chainId', params: params as never });

  beforeAll(async () => {
    bed = await startGatewayTestbed({ confirmations: 4 });
    client = createPublicClient({ transport: http(bed.devnet.manifest.evm[0]!.rpcUrl) });
    // Blocks come only when the test mines them.
    await rpc('evm_setIntervalMining', [0]);
  }, 180_000);

  afterAll(async () => {
    await rpc('evm_setIntervalMining', [1]).catch(() => {});
    await bed?.close();
  });

  const relayed = (paymentId: string) =>
    bed.server.db
      .selectFrom('evm_transactions')
      .select(['status', 'receipt_block_hash', 'receipt_block_number'])
      .where('payment_id', '=', paymentId)
      .executeTakeFirst();

  /** Gives the follower (a pass every quarter block) time to see the chain as it is now. */
  const followerCatchesUp = () => new Promise((resolve) => setTimeout(resolve, 1_000));

  it('keeps the payment processing while its transfer is reorged out, and makes it succeeded only at depth on the new chain', async () => {
    const { paymentId } = await bed.newPayment();
    const option = await optionIn(bed, paymentId, 'alice', 'USDC');
    const signature = await signTypedDataAsWallet(bed.buyer('alice').evmPrivateKey, option.actions[0].data.params);
    const confirmed = await bed.gateway(paymentId, '/confirm', { optionId: option.id, results: results(signature) });
    expect(confirmed.body.status, confirmed.text).toBe('processing');
    await until('the submission to be sent', async () => (await relayed(paymentId))?.status === 'broadcast');

    await rpc('evm_mine');
    const first = await until('the follower to see the transfer mined', async () => {
      const row = await relayed(paymentId);
      return row?.receipt_block_hash ? row : null;
    });
    await rpc('evm_mine');
    await rpc('evm_mine');
    await followerCatchesUp();
    // Three blocks deep of four.
    expect((await statusOf(bed, paymentId)).status).toBe('processing');

    await rpc('anvil_rollback', [3]);
    await until(
      'the follower to notice the reorg',
      async () => (await relayed(paymentId))?.receipt_block_hash === null,
    );
    expect((await statusOf(bed, paymentId)).status).toBe('processing');

    // A new branch: the same transfer lands again in a block of its own, once the node has it back in its pool.
    const second = await until('the transfer mined again', async () => {
      await rpc('evm_mine');
      await new Promise((resolve) => setTimeout(resolve, 600));
      const row = await relayed(paymentId);
      return row?.receipt_block_hash ? row : null;
    });
    expect(second.receipt_block_hash).not.toBe(first.receipt_block_hash);
    await rpc('evm_mine');
    await rpc('evm_mine');
    await followerCatchesUp();
    expect((await statusOf(bed, paymentId)).status).toBe('processing');

    await rpc('evm_mine');
    const final = await until('succeeded', async () => {
      const status = await statusOf(bed, paymentId);
      return status.status === 'succeeded' ? status : null;
    });
    const receipt = await client.getTransactionReceipt({ hash: final.info.txId as Hex });
    expect(receipt.blockHash).toBe(second.receipt_block_hash);
    expect((await client.getBlockNumber({ cacheTime: 0 })) - receipt.blockNumber + 1n).toBe(4n);
    expect(await relayed(paymentId)).toMatchObject({
      status: 'confirmed',
      receipt_block_hash: second.receipt_block_hash,
    });
  });
});

describe('a native transfer that is never mined', () => {
  const deadlineMs = 10 * 60_000;
  let bed: GatewayTestbed;

  beforeAll(async () => {
    bed = await startGatewayTestbed({ buyerTransferDeadlineMs: deadlineMs });
  }, 180_000);

  afterAll(async () => {
    await bed?.close();
  });

  /** Signs the option's transfer with a nonce far ahead of the buyer's, so the node holds it and never mines it. */
  async function sendNeverMined(option: any): Promise<Hex> {
    const [request] = JSON.parse(option.actions[0].data.params) as [{ to: Hex; value: Hex; data: Hex }];
    const evm = bed.devnet.manifest.evm[0]!;
    const client = createPublicClient({ transport: http(evm.rpcUrl) });
    const account = privateKeyToAccount(bed.buyer('carol').evmPrivateKey);
    const wallet = createWalletClient({ account, transport: http(evm.rpcUrl) });
    const nonce = (await client.getTransactionCount({ address: account.address, blockTag: 'pending' })) + 1_000;
    const fees = await client.estimateFeesPerGas();
    const raw = await wallet.signTransaction({
      chain: null,
      chainId: evm.chainId,
      nonce,
      to: request.to,
      value: BigInt(request.value),
      data: request.data,
      gas: 30_000n,
      ...fees,
    });
    return client.sendRawTransaction({ serializedTransaction: raw });
  }

  it('holds nothing while it waits, lets other payments through, and fails the payment with transfer_not_mined at its deadline', async () => {
    const stuck = await bed.newPayment();
    const stuckOption = await optionIn(bed, stuck.paymentId, 'carol', 'ETH');
    const hash = await sendNeverMined(stuckOption);
    const confirmed = await bed.gateway(stuck.paymentId, '/confirm', {
      optionId: stuckOption.id,
      results: results(hash),
    });
    expect(confirmed.body.status, confirmed.text).toBe('processing');

    // An honest native payment and an EIP-3009 payment both complete while the stuck one waits.
    const native = await bed.newPayment();
    const nativeOption = await optionIn(bed, native.paymentId, 'bob', 'ETH');
    const evm = bed.devnet.manifest.evm[0]!;
    const nativeHash = await sendTransactionAsWallet(
      bed.buyer('bob').evmPrivateKey,
      { chainId: evm.chainId, rpcUrl: evm.rpcUrl },
      nativeOption.actions[0].data.params,
    );
    const usdc = await bed.newPayment();
    const usdcOption = await optionIn(bed, usdc.paymentId, 'alice', 'USDC');
    const signature = await signTypedDataAsWallet(bed.buyer('alice').evmPrivateKey, usdcOption.actions[0].data.params);
    const [nativeDone, usdcDone] = await Promise.all([
      bed.gateway(native.paymentId, '/confirm?maxPollMs=20000', {
        optionId: nativeOption.id,
        results: results(nativeHash),
      }),
      bed.gateway(usdc.paymentId, '/confirm?maxPollMs=20000', { optionId: usdcOption.id, results: results(signature) }),
    ]);
    expect([nativeDone.body.status, usdcDone.body.status]).toEqual(['succeeded', 'succeeded']);
    expect((await statusOf(bed, stuck.paymentId)).status).toBe('processing');
    // No job holds a slot for it: the queue has nothing running.
    const running = await bed.server.db
      .selectFrom('graphile_worker._private_jobs' as never)
      .select('id' as never)
      .where('locked_at' as never, 'is not', null)
      .execute();
    expect(running).toEqual([]);

    bed.clock.advance(deadlineMs + 1_000);
    try {
      const failed = await until('the deadline to fail the payment', async () => {
        const status = await statusOf(bed, stuck.paymentId);
        return status.status === 'failed' ? status : null;
      });
      expect(failed).toMatchObject({ status: 'failed', isFinal: true, failureCode: 'transfer_not_mined' });
      expect(
        await bed.server.db
          .selectFrom('chain_watches')
          .select(['status', 'kind'])
          .where('payment_id', '=', stuck.paymentId)
          .execute(),
      ).toEqual([{ status: 'expired', kind: 'native_payment' }]);
    } finally {
      bed.clock.advance(-(deadlineMs + 1_000));
    }
  });

  it('watches the transfer of a confirmation accepted before transfers were watched, and pays the payment', async () => {
    await bed.stopWorkers();
    const { paymentId } = await bed.newPayment();
    const option = await optionIn(bed, paymentId, 'bob', 'ETH');
    const evm = bed.devnet.manifest.evm[0]!;
    const hash = await sendTransactionAsWallet(
      bed.buyer('bob').evmPrivateKey,
      { chainId: evm.chainId, rpcUrl: evm.rpcUrl },
      option.actions[0].data.params,
    );
    const confirmed = await bed.gateway(paymentId, '/confirm', { optionId: option.id, results: results(hash) });
    expect(confirmed.body.status, confirmed.text).toBe('processing');
    // As an earlier version of the service left it: the confirmation and its job, no watch.
    await bed.server.db.deleteFrom('chain_watches').where('payment_id', '=', paymentId).execute();

    await bed.startWorkers();
    const final = await until('succeeded', async () => {
      const status = (await bed.gateway(paymentId, '/status?maxPollMs=5000')).body;
      return status.isFinal ? status : null;
    });
    expect(final).toMatchObject({ status: 'succeeded', info: { txId: hash } });
  });
});
