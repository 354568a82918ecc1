import { randomUUID } from 'node:crypto';
import {
  address,
  createKeyPairFromBytes,
  createSolanaRpc,
  getBase58Encoder,
  getBase64EncodedWireTransaction,
  getBase64Encoder,
  getSignatureFromTransaction,
  getTransactionDecoder,
  partiallySignTransaction,
  signature as toSignature,
} from '@solana/kit';
import { type Address, type Hex, toHex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Relayer } from '../../src/chains/evm/relayer.ts';
import type { NetworkInfo } from '../../src/chains/registry.ts';
import { systemClock } from '../../src/clock.ts';
import { inTransaction } from '../../src/db/database.ts';
import { auditCollector, auditNegativeBalances, finalReadPoints, readAuditedLedger } from '../../src/ledger/audit.ts';
import { recordFunding } from '../../src/ledger/funding.ts';
import { merchantAccount, NetworkFeeShortfallError, OPERATOR, postFunding } from '../../src/ledger/ledger.ts';
import { payoutSenders } from '../../src/payouts/index.ts';
import { RefundWorker } from '../../src/refunds/refundWorker.ts';
import { parseTransferRequestUri } from '../../src/solanaPay/transferRequestUri.ts';
import {
  type GatewayTestbed,
  sendTransactionAsWallet,
  signSolanaAsWallet,
  signTypedDataAsWallet,
  startGatewayTestbed,
} from '../gateway/support/gatewayTestbed.ts';
import {
  addDestination,
  newEvmDestination,
  newSolanaDestination,
  payInUsdc,
  settlementWorker,
  usdcAssets,
} from '../settlement/support.ts';
import { createMerchant } from '../support/fixtures.ts';
import { ledgerBalanceOf } from '../support/ledgerAudit.ts';
import { scrape } from '../support/prometheusText.ts';
import { call, expectErrorBody } from '../support/testServer.ts';
import { warningsInto } from '../support/warnings.ts';

/**
 * The collector holds every tenant's money in one account per network, native coin included. Its network fees are
 * the operator's cost: a transaction is journaled only when the operator's funding covers the most it can cost, so
 * no tenant's ETH or SOL pays for gas, whatever the collector holds in all.
 */
describe('network fees: paid out of the operator’s funding, never out of what tenants are owed', () => {
  let bed: GatewayTestbed;
  const problems: string[] = [];

  beforeAll(async () => {
    bed = await startGatewayTestbed();
  }, 180_000);
  afterAll(() => bed?.close());

  const db = () => bed.server.db;
  const evmNetwork = () => bed.chains.network(bed.evmChain()) as NetworkInfo;
  const ether = () => evmNetwork().tokens.find((token) => token.method === 'native')?.caip19 as string;
  const sol = () => bed.devnet.manifest.solana.nativeToken.caip19;
  const evmClient = () => bed.services.evm.clients.for(evmNetwork());
  const collectorEth = () => evmClient().getBalance({ address: bed.services.evm.collector as Address });
  const apiHeaders = (merchantId: string) => ({ 'api-key': bed.partner.apiKey, 'merchant-id': merchantId });
  const results = (...values: string[]) => values.map((value) => ({ type: 'walletRpc', data: [value] }));

  /** The collector's balances on the chains against the ledger, as `paygate audit` compares them: the differing ones. */
  const differing = async () => {
    const senders = payoutSenders({ db: db(), chains: bed.chains, services: bed.services, clock: systemClock });
    const lines = await auditCollector(
      await readAuditedLedger(db()),
      bed.chains,
      senders,
      finalReadPoints((network) => bed.services.evm.clients.for(network)),
    );
    return lines.filter((line) => line.difference !== '0');
  };

  /** The operator takes `amount` (all it holds, by default) of a coin out of the collector, recorded as `paygate ledger fund` does. */
  async function operatorTakesOut(asset: string, amount?: bigint): Promise<bigint> {
    const taken = amount ?? (await ledgerBalanceOf(db(), OPERATOR, asset));
    await inTransaction(db(), (trx) => postFunding(trx, `funding:withdrawn:${randomUUID()}`, asset, -taken));
    return taken;
  }

  /** As `operatorTakesOut`, and the ETH leaves the collector on the chain too (the operator's own transfer). */
  async function operatorTakesEthOut(amount?: bigint): Promise<void> {
    const taken = await operatorTakesOut(ether(), amount);
    const left = (await collectorEth()) - taken;
    await evmClient().request({
      method: 'anvil_setBalance' as 'eth_chainId',
      params: [bed.services.evm.collector, toHex(left)] as never,
    });
  }

  /** Waits until the collector has no transaction open on any network, so every fee is entered. */
  async function collectorIdle(): Promise<void> {
    await expect
      .poll(
        async () =>
          (
            await db()
              .selectFrom('evm_transactions')
              .select('id')
              .where('status', 'in', ['recorded', 'broadcast'])
              .execute()
          ).length +
          (
            await db()
              .selectFrom('solana_transactions')
              .select('id')
              .where('status', 'in', ['recorded', 'sent'])
              .execute()
          ).length,
        { timeout: 60_000, interval: 200 },
      )
      .toBe(0);
  }

  /** A payment of the merchant paid in ETH by the buyer's own transfer to the collector, until it succeeded. */
  async function payInEth(merchantId: string, buyerName: string): Promise<string> {
    const created = await call(bed.server, '/v1/payments', {
      method: 'POST',
      headers: apiHeaders(merchantId),
      body: { amount: { unit: 'iso4217/USD', value: '1000' }, referenceId: `order-${randomUUID()}` },
    });
    expect(created.status, created.text).toBe(201);
    const { paymentId } = created.body;
    const options = await bed.gateway(paymentId, '/options', { accounts: [bed.evmAccount(buyerName)] });
    const option = options.body.options.find((candidate: any) => candidate.amount.unit === `caip19/${ether()}`);
    expect(option, options.text).toBeDefined();
    const hash = await sendTransactionAsWallet(
      bed.buyer(buyerName).evmPrivateKey,
      { chainId: bed.devnet.manifest.evm[0]!.chainId, rpcUrl: bed.devnet.manifest.evm[0]!.rpcUrl },
      option.actions[0].data.params,
    );
    const confirmed = await bed.gateway(paymentId, '/confirm?maxPollMs=30000', {
      optionId: option.id,
      results: results(hash),
    });
    expect(confirmed.status, confirmed.text).toBe(200);
    expect((await bed.finalStatus(paymentId)).status).toBe('succeeded');
    return paymentId;
  }

  /** The 503 a caller gets while the operator has not funded the network's fees. */
  function expectFeeUnfunded(response: Awaited<ReturnType<typeof call>>, asset: string): void {
    expect(response.status, response.text).toBe(503);
    expect(expectErrorBody(response)).toMatchObject({
      code: 'service_unavailable',
      details: { reason: 'network_fee_unfunded', asset },
    });
  }

  const journaledFor = (references: string[]) =>
    db().selectFrom('evm_transactions').select(['id', 'purpose']).where('payment_id', 'in', references).execute();

  describe('on EVM', () => {
    it('spends none of a merchant’s ETH on gas: its refund and settlement wait unjournaled and a relayed payment is refused, until the operator funds gas', async () => {
      const merchantId = (await createMerchant(bed.server, bed.partner.apiKey)).id;
      const destination = newEvmDestination(bed);
      await addDestination(bed, merchantId, ether(), destination);
      const ethPayment = await payInEth(merchantId, 'bob');
      const owed = await ledgerBalanceOf(db(), merchantAccount(merchantId), ether());
      expect(owed).toBeGreaterThan(0n);
      await collectorIdle();

      // The operator takes all its ETH out: what the collector holds of it now is the tenants'.
      await operatorTakesEthOut();
      expect(await ledgerBalanceOf(db(), OPERATOR, ether())).toBe(0n);
      expect(await differing()).toEqual([]);
      const heldBefore = await collectorEth();
      const refusals = async () =>
        (await scrape(bed.server)).value('paygate_network_fee_refusals_total', { asset: ether() }) ?? 0;
      const refusalsBefore = await refusals();

      // A refund of 1.00 USD to the buyer is the merchant's to make, but its gas is no one's: it waits, unjournaled.
      const refund = await call(bed.server, '/v1/refunds', {
        method: 'POST',
        headers: apiHeaders(merchantId),
        body: { paymentId: ethPayment, amount: { unit: 'iso4217/USD', value: '100' }, send: true },
      });
      expect(refund.status, refund.text).toBe(200);
      const refundId = refund.body.id as string;
      const refunds = new RefundWorker({
        db: db(),
        chains: bed.chains,
        services: bed.services,
        clock: bed.clock,
        log: warningsInto(problems),
      });
      expect(await refunds.runOnce()).toEqual({ driven: [], waiting: [] });
      const shortfall = `the operator holds 0 of ${ether()} for network fees`;
      expect(problems).toContainEqual(expect.stringContaining(`refund ${refundId} not sent yet: ${shortfall}`));

      // So does the merchant's settlement: its batch is claimed from the merchant's balance, and waits.
      const settlements = settlementWorker(bed, problems);
      const round = await settlements.runOnce();
      expect(round.created).toHaveLength(1);
      const batchId = round.created[0] as string;
      expect(problems).toContainEqual(
        expect.stringContaining(`settlement batch ${batchId} not sent yet: ${shortfall}`),
      );
      expect(await journaledFor([refundId, batchId])).toEqual([]);
      expect(
        (await db().selectFrom('refunds').select('status').where('id', '=', refundId).executeTakeFirstOrThrow()).status,
      ).toBe('pending');
      expect(
        (
          await db()
            .selectFrom('settlement_batches')
            .select('status')
            .where('id', '=', batchId)
            .executeTakeFirstOrThrow()
        ).status,
      ).toBe('claimed');
      // The merchant's ETH is intact: on the chain, and in the ledger as its balance and its payouts on their way.
      expect(await collectorEth()).toBe(heldBefore);
      const refundValue = BigInt(
        (await db().selectFrom('refunds').select('token_value').where('id', '=', refundId).executeTakeFirstOrThrow())
          .token_value as string,
      );
      const batchAmount = BigInt(
        (
          await db()
            .selectFrom('settlement_batches')
            .select('amount')
            .where('id', '=', batchId)
            .executeTakeFirstOrThrow()
        ).amount,
      );
      expect((await ledgerBalanceOf(db(), merchantAccount(merchantId), ether())) + refundValue + batchAmount).toBe(
        owed,
      );
      expect(await differing()).toEqual([]);

      // A buyer's EIP-3009 payment, whose relay the collector would pay gas for, is refused at its confirm.
      const { paymentId } = await bed.newPayment();
      const options = await bed.gateway(paymentId, '/options', { accounts: [bed.evmAccount('alice')] });
      const usdc = options.body.options.find(
        (candidate: any) => candidate.amount.unit === `caip19/${usdcAssets(bed).evm.caip19}`,
      );
      const signature = await signTypedDataAsWallet(bed.buyer('alice').evmPrivateKey, usdc.actions[0].data.params);
      const confirm = { optionId: usdc.id, results: results(signature) };
      expectFeeUnfunded(await bed.gateway(paymentId, '/confirm', confirm), ether());
      expect((await bed.gateway(paymentId, '/status')).body).toMatchObject({ status: 'requires_action' });
      // The refund, the settlement and the confirm, each refused at least once: what the operator's alert counts.
      expect(await refusals()).toBeGreaterThanOrEqual(refusalsBefore + 3);

      // The operator funds gas (the devnet's faucet, recorded as `paygate ledger fund` records a top-up).
      await recordFunding(db(), await bed.devnet.fund({ evm: [bed.services.evm.collector] }));
      const funded = await ledgerBalanceOf(db(), OPERATOR, ether());
      await expect
        .poll(
          async () => {
            await refunds.runOnce();
            return (
              await db().selectFrom('refunds').select('status').where('id', '=', refundId).executeTakeFirstOrThrow()
            ).status;
          },
          { timeout: 60_000, interval: 500 },
        )
        .toBe('succeeded');
      await expect
        .poll(
          async () => {
            await settlements.runOnce();
            return (
              await db()
                .selectFrom('settlement_batches')
                .select('status')
                .where('id', '=', batchId)
                .executeTakeFirstOrThrow()
            ).status;
          },
          { timeout: 60_000, interval: 500 },
        )
        .toBe('confirmed');
      expect(await evmClient().getBalance({ address: destination.split(':')[2] as Address })).toBe(batchAmount);
      const confirmed = await bed.gateway(paymentId, '/confirm?maxPollMs=30000', confirm);
      expect(confirmed.status, confirmed.text).toBe(200);
      expect((await bed.finalStatus(paymentId)).status).toBe('succeeded');
      await collectorIdle();

      // The merchant's ETH went to its destination and its buyer alone; the gas of the three came from the operator.
      expect(await ledgerBalanceOf(db(), merchantAccount(merchantId), ether())).toBe(0n);
      const journaled = await db()
        .selectFrom('evm_transactions')
        .select(['id', 'fee_paid'])
        .where('payment_id', 'in', [refundId, batchId, paymentId])
        .execute();
      expect(journaled).toHaveLength(3);
      const gas = journaled.reduce((sum, transaction) => sum + BigInt(transaction.fee_paid ?? 0), 0n);
      expect(gas).toBeGreaterThan(0n);
      expect(await ledgerBalanceOf(db(), OPERATOR, ether())).toBe(funded - gas);
      expect(await ledgerBalanceOf(db(), 'network_fees', ether())).toBe(0n);
      expect(await differing()).toEqual([]);
    }, 300_000);

    it('journals only one of two transactions racing on an operator balance that covers one, in one process or in two', async () => {
      await collectorIdle();
      const key = bed.keys.evmPrivateKey as Hex;
      const relayer = () =>
        new Relayer({ db: db(), networks: bed.chains.networks, privateKey: key, clients: bed.services.evm.clients });
      // Two relayers of the one collector, as two processes have, and one relayer journaling two at once.
      for (const [first, second] of [
        [relayer(), relayer()],
        [bed.services.evm.relayer, bed.services.evm.relayer],
      ] as const) {
        const purpose = `test_race_${randomUUID().slice(0, 8)}`;
        // A call moving nothing: its gas is all it costs the collector.
        const request = { chain: bed.evmChain(), to: newEvmDestination(bed).split(':')[2] as Address, purpose };
        const prepared = [await first.prepare(request), await second.prepare(request)];
        const [one, other] = prepared.map((transaction) => transaction.gas * transaction.fees.maxFeePerGas) as [
          bigint,
          bigint,
        ];
        // Enough for either of them, not for both.
        const barely = one + other - 1n;
        await operatorTakesEthOut((await ledgerBalanceOf(db(), OPERATOR, ether())) - barely);
        expect(await ledgerBalanceOf(db(), OPERATOR, ether())).toBe(barely);

        const outcomes = await Promise.allSettled([
          first.recordPrepared(prepared[0] as (typeof prepared)[0]),
          second.recordPrepared(prepared[1] as (typeof prepared)[1]),
        ]);
        const recorded = outcomes.filter((outcome) => outcome.status === 'fulfilled');
        const refused = outcomes.flatMap((outcome) => (outcome.status === 'rejected' ? [outcome.reason] : []));
        expect(recorded).toHaveLength(1);
        expect(refused).toHaveLength(1);
        expect(refused[0]).toBeInstanceOf(NetworkFeeShortfallError);
        expect((refused[0] as NetworkFeeShortfallError).held).toBeLessThan(
          (refused[0] as NetworkFeeShortfallError).needed,
        );
        const journaled = await db()
          .selectFrom('evm_transactions')
          .select('id')
          .where('purpose', '=', purpose)
          .execute();
        expect(journaled).toHaveLength(1);

        // The one journaled goes out (it holds a nonce), paid by the operator out of what it reserved.
        await first.broadcast((journaled[0] as { id: string }).id);
        await collectorIdle();
        expect(await ledgerBalanceOf(db(), OPERATOR, ether())).toBeLessThan(barely);
        expect(await ledgerBalanceOf(db(), OPERATOR, ether())).toBeGreaterThanOrEqual(0n);
        await recordFunding(db(), await bed.devnet.fund({ evm: [bed.services.evm.collector] }));
      }
      expect(await differing()).toEqual([]);
    }, 300_000);
  });

  describe('on Solana', () => {
    const rpc = () => createSolanaRpc(bed.devnet.manifest.solana.rpcUrl);

    /** A payment of the testbed's merchant and the path of its USDC Solana Pay transaction request, from its checkout page. */
    async function solanaPayRequest(): Promise<{ paymentId: string; path: string }> {
      const { paymentId, gatewayUrl } = await bed.newPayment();
      const page = await (await fetch(gatewayUrl)).text();
      const mint = usdcAssets(bed).solana.mint;
      const request = [...page.matchAll(/value="(solana:[^"]+)"/g)]
        .map((match) => parseTransferRequestUri((match[1] as string).replaceAll('&amp;', '&')))
        .find((parsed) => parsed?.splToken === mint);
      const reference = request?.references[0];
      if (!reference) throw new Error('no Solana Pay request on the page');
      return { paymentId, path: `/v1/solana-pay/requests/${reference}` };
    }

    /** A buyer's sponsored transfer for a new payment: built, signed as its wallet would, ready to confirm. */
    async function signedSponsoredTransfer(buyerName: string) {
      const { paymentId } = await bed.newPayment();
      const options = await bed.gateway(paymentId, '/options', { accounts: [bed.solanaAccount(buyerName)] });
      const option = options.body.options.find(
        (candidate: any) => candidate.amount.unit === `caip19/${usdcAssets(bed).solana.caip19}`,
      );
      const fetched = await bed.gateway(paymentId, '/fetch', {
        optionId: option.id,
        data: option.actions[0].data.data,
      });
      expect(fetched.status, fetched.text).toBe(200);
      const signed = await signSolanaAsWallet(
        bed.buyer(buyerName).solanaSecretKey,
        fetched.body.actions[0].data.params,
      );
      return { paymentId, confirm: { optionId: option.id, results: results(signed) } };
    }

    it('takes a settlement’s fee and rent from the operator: the most it could cost reserved when journaled, the rest given back when final', async () => {
      const merchantId = (await createMerchant(bed.server, bed.partner.apiKey)).id;
      const { solana } = usdcAssets(bed);
      await addDestination(bed, merchantId, solana.caip19, await newSolanaDestination(bed));
      await payInUsdc(bed, merchantId, 'solana', 1_500n);
      const round = await settlementWorker(bed, problems).runOnce();
      expect(round.created).toHaveLength(1);
      const batchId = round.created[0] as string;
      await collectorIdle();
      const sent = await db()
        .selectFrom('solana_transactions')
        .select(['id', 'signature', 'status'])
        .where('purpose', '=', 'settlement')
        .where('reference', '=', batchId)
        .executeTakeFirstOrThrow();
      expect(sent.status).toBe('confirmed');

      // What the transaction took from the collector on the chain: its fee, and the rent of the merchant's new token account.
      const landed = await rpc()
        .getTransaction(toSignature(sent.signature), {
          commitment: 'confirmed',
          encoding: 'json',
          maxSupportedTransactionVersion: 0,
        })
        .send();
      const index =
        landed?.transaction.message.accountKeys.indexOf(address(bed.services.solana.collector.address)) ?? -1;
      const spent = BigInt(landed?.meta?.preBalances[index] ?? 0n) - BigInt(landed?.meta?.postBalances[index] ?? 0n);
      expect(spent).toBeGreaterThan(landed?.meta?.fee ?? 0n);

      const entry = `network_fee:${sent.id}`;
      const lines = await db()
        .selectFrom('ledger_entries')
        .select(['entry', 'account', 'asset', 'amount'])
        .where('entry', 'in', [entry, `${entry}:reserved`, `${entry}:settled`])
        .orderBy('entry')
        .orderBy('account')
        .execute();
      const reserved = BigInt(
        lines.find((line) => line.entry === `${entry}:reserved` && line.account === OPERATOR)?.amount ?? 0,
      );
      expect(reserved).toBeGreaterThanOrEqual(spent);
      expect(lines).toEqual([
        { entry, account: 'collector', asset: sol(), amount: (-spent).toString() },
        { entry, account: 'network_fees', asset: sol(), amount: spent.toString() },
        { entry: `${entry}:reserved`, account: 'network_fees', asset: sol(), amount: (-reserved).toString() },
        { entry: `${entry}:reserved`, account: OPERATOR, asset: sol(), amount: reserved.toString() },
        { entry: `${entry}:settled`, account: 'network_fees', asset: sol(), amount: (reserved - spent).toString() },
        { entry: `${entry}:settled`, account: OPERATOR, asset: sol(), amount: (spent - reserved).toString() },
      ]);
      expect(await differing()).toEqual([]);
    }, 300_000);

    it('refuses a sponsored transfer and a Solana Pay transaction while the operator’s SOL does not cover their fees; one handed out before keeps its reservation, so the operator never goes below zero', async () => {
      await collectorIdle();
      // A Solana Pay transaction signed while the operator's SOL covered it; the buyer sends it later.
      const handedOut = await solanaPayRequest();
      const erin = bed.buyer('erin');
      const answered = await call(bed.server, handedOut.path, {
        method: 'POST',
        body: { account: erin.solanaAddress },
      });
      expect(answered.status, answered.text).toBe(200);

      const withdrawn = await operatorTakesOut(sol());
      expect(await ledgerBalanceOf(db(), OPERATOR, sol())).toBe(0n);
      const another = await solanaPayRequest();
      expectFeeUnfunded(
        await call(bed.server, another.path, { method: 'POST', body: { account: bed.buyer('alice').solanaAddress } }),
        sol(),
      );
      const sponsored = await signedSponsoredTransfer('alice');
      expectFeeUnfunded(await bed.gateway(sponsored.paymentId, '/confirm', sponsored.confirm), sol());
      expect((await bed.gateway(sponsored.paymentId, '/status')).body).toMatchObject({ status: 'requires_action' });

      // The one handed out lands all the same: its fee comes out of what was reserved for it when it was signed, which
      // the operator could not take out, and the rest of the reservation goes back to the operator.
      const keyPair = await createKeyPairFromBytes(new Uint8Array(getBase58Encoder().encode(erin.solanaSecretKey)));
      const transaction = getTransactionDecoder().decode(getBase64Encoder().encode(answered.body.transaction));
      const signed = await partiallySignTransaction([keyPair], transaction);
      await rpc()
        .sendTransaction(getBase64EncodedWireTransaction(signed), {
          encoding: 'base64',
          preflightCommitment: 'confirmed',
        })
        .send();
      expect((await bed.finalStatus(handedOut.paymentId)).status).toBe('succeeded');
      const signature = getSignatureFromTransaction(signed);
      const feeEntry = `network_fee:${signature}`;
      await expect
        .poll(
          async () =>
            (await db().selectFrom('ledger_entries').select('id').where('entry', '=', `${feeEntry}:settled`).execute())
              .length,
          { timeout: 30_000, interval: 200 },
        )
        .toBeGreaterThan(0);
      const landed = await rpc()
        .getTransaction(toSignature(signature), {
          commitment: 'confirmed',
          encoding: 'json',
          maxSupportedTransactionVersion: 0,
        })
        .send();
      const reserved = await db()
        .selectFrom('ledger_entries')
        .select('amount')
        .where('entry', '=', `${feeEntry}:reserved`)
        .where('account', '=', OPERATOR)
        .executeTakeFirstOrThrow();
      const fee = BigInt(landed?.meta?.fee ?? 0n);
      expect(fee).toBeGreaterThan(0n);
      expect(await ledgerBalanceOf(db(), OPERATOR, sol())).toBe(BigInt(reserved.amount) - fee);
      expect(await auditNegativeBalances(db())).not.toContainEqual(expect.objectContaining({ account: OPERATOR }));

      // Funded again, the operator covers the next payment's fee.
      await recordFunding(db(), [{ asset: sol(), amount: withdrawn }]);
      const again = await signedSponsoredTransfer('alice');
      const confirmed = await bed.gateway(again.paymentId, '/confirm?maxPollMs=30000', again.confirm);
      expect(confirmed.status, confirmed.text).toBe(200);
      expect((await bed.finalStatus(again.paymentId)).status).toBe('succeeded');
      await collectorIdle();
      expect(await differing()).toEqual([]);
    }, 300_000);
  });
});
