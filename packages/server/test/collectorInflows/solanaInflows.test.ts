import {
  AccountRole,
  address,
  createKeyPairSignerFromBytes,
  createKeyPairSignerFromPrivateKeyBytes,
  createSolanaRpc,
  getBase58Encoder,
  type Instruction,
  type KeyPairSigner,
  lamports,
} from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import {
  findAssociatedTokenPda,
  getCreateAssociatedTokenIdempotentInstruction,
  getTransferCheckedInstruction,
  TOKEN_PROGRAM_ADDRESS,
} from '@solana-program/token';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { askInflowReturn } from '../../src/collectorInflows/inflowReturns.ts';
import { inTransaction } from '../../src/db/database.ts';
import { auditNegativeBalances, auditPayoutsInFlight, auditUnsolicitedInflows } from '../../src/ledger/audit.ts';
import { withSolanaPayTables } from '../../src/chains/solana/solanaPayTables.ts';
import { recordFunding } from '../../src/ledger/funding.ts';
import { parseTransferRequestUri } from '../../src/solanaPay/transferRequestUri.ts';
import { expirePaymentNow } from '../support/expirePaymentNow.ts';
import { postFunding } from '../../src/ledger/ledger.ts';
import { readSolanaBalances } from '../../src/chains/solana/readSolanaBalances.ts';
import { type GatewayTestbed, startGatewayTestbed } from '../gateway/support/gatewayTestbed.ts';
import { payInUsdc } from '../settlement/support.ts';
import { ledgerBalanceOf } from '../support/ledgerAudit.ts';
import { NO_CHAIN_ENV, runCli } from '../support/serverProcess.ts';
import { sendAsWallet } from '../solanaPay/support.ts';
import { collectorInflowChecks } from './support.ts';

/** How long a transfer into the collector waits for a record to claim it before it is judged unsolicited. */
const GRACE_MS = 5_000;

/**
 * On Solana too, anyone can send SOL or tokens straight to the collector with no payment or reference: each such
 * transfer is recorded as owed to its sender and can be sent back, so the ledger keeps matching the chain.
 */
describe('transfers into the Solana collector that no record holds, on the devnet', () => {
  let testbed: GatewayTestbed;
  const solana = () => testbed.devnet.manifest.solana;
  const usdc = () => solana().tokens.find((token) => token.symbol === 'USDC')!;
  const sol = () => solana().nativeToken;
  const collector = () => testbed.services.solana.collector.address;
  const rpc = () => createSolanaRpc(solana().rpcUrl);
  const { inflowsOf, audit, judged, returnedAll } = collectorInflowChecks(() => testbed);
  const differingOnSolana = async () =>
    (await audit()).filter((line) => line.difference !== '0' && line.asset.startsWith('solana:'));
  /** Waits until the node holds a transaction at `confirmed`. */
  const confirmed = async (signature: string) => {
    await expect
      .poll(
        async () => {
          const [status] = (
            await rpc()
              .getSignatureStatuses([signature as never])
              .send()
          ).value;
          return status?.confirmationStatus === 'confirmed' || status?.confirmationStatus === 'finalized';
        },
        { timeout: 30_000, interval: 200 },
      )
      .toBe(true);
    return signature;
  };
  const devnetBuyer = (name: string) =>
    createKeyPairSignerFromBytes(new Uint8Array(getBase58Encoder().encode(testbed.buyer(name).solanaSecretKey)));
  /** Sends and confirms a transaction of `instructions` paid by `payer`'s wallet; its signature. */
  const sendAs = async (payer: KeyPairSigner, instructions: Instruction[]) =>
    confirmed(await sendAsWallet(solana().rpcUrl, payer, instructions));
  /**
   * The instructions of a plain USDC transfer from a wallet to `to` (the collector unless told), with `references` as
   * read-only keys of the transfer, where a wallet puts a Solana Pay request's.
   */
  const usdcTransfer = async (from: KeyPairSigner, amount: bigint, to = collector(), references: string[] = []) => {
    const mint = address(usdc().address);
    const [[source], [destination]] = await Promise.all([
      findAssociatedTokenPda({ owner: from.address, mint, tokenProgram: TOKEN_PROGRAM_ADDRESS }),
      findAssociatedTokenPda({ owner: address(to), mint, tokenProgram: TOKEN_PROGRAM_ADDRESS }),
    ]);
    const transfer = getTransferCheckedInstruction({
      source,
      mint,
      destination,
      authority: from,
      amount,
      decimals: usdc().decimals,
    });
    return [
      getCreateAssociatedTokenIdempotentInstruction({ payer: from, ata: destination, owner: address(to), mint }),
      {
        ...transfer,
        accounts: [
          ...transfer.accounts,
          ...references.map((reference) => ({ address: address(reference), role: AccountRole.READONLY })),
        ],
      },
    ];
  };
  /** A plain USDC transfer from a wallet to `to` (the collector unless told), with no reference. */
  const sendUsdc = async (from: KeyPairSigner, amount: bigint, to = collector()) =>
    sendAs(from, await usdcTransfer(from, amount, to));
  /** The USDC transfer request a payment's checkout page shows (which opens it), read from its HTML. */
  const transferRequestOnPage = async (gatewayUrl: string) => {
    const page = await (await fetch(gatewayUrl)).text();
    const request = [...page.matchAll(/value="(solana:[^"]+)"/g)]
      .map((match) => parseTransferRequestUri((match[1] as string).replaceAll('&amp;', '&')))
      .find((uri) => uri?.splToken === usdc().address);
    if (!request) throw new Error(`no USDC Solana Pay request on ${gatewayUrl}`);
    return request;
  };
  /** A plain SOL transfer from a wallet to `to` (the collector unless told). */
  const sendSol = (from: KeyPairSigner, amount: bigint, to = collector()) =>
    sendAs(from, [getTransferSolInstruction({ source: from, destination: address(to), amount: lamports(amount) })]);
  const balancesOf = async (owner: string) => (await readSolanaBalances(rpc(), [owner], [usdc().address]))[owner]!;

  beforeAll(async () => {
    testbed = await startGatewayTestbed({ buyerTransferDeadlineMs: GRACE_MS });
    // The follower takes the newest signature of each of the collector's accounts as its start.
    const deadline = Date.now() + 60_000;
    const followed = solana().tokens.length + 1;
    while (
      (await testbed.server.db.selectFrom('solana_inflow_cursors').select('account').execute()).length < followed
    ) {
      if (Date.now() > deadline) throw new Error('the Solana collector-inflow follower never started');
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    // What the devnet gave the collector before the service took anything: the operator's funding.
    await inTransaction(testbed.server.db, async (trx) => {
      for (const line of await audit())
        if (line.asset.startsWith('solana:'))
          await postFunding(trx, `funding:devnet:${line.asset}`, line.asset, BigInt(line.difference));
    });
    expect(await differingOnSolana()).toEqual([]);
  }, 180_000);
  afterAll(() => testbed?.close());

  it('records a plain token transfer and a plain SOL transfer as unsolicited, owed to their senders, and the ledger matches the chain', async () => {
    const tokenSignature = await sendUsdc(await devnetBuyer('alice'), 4_000_000n);
    const solSignature = await sendSol(await devnetBuyer('bob'), 20_000_000n);

    const [token] = await judged(tokenSignature);
    const [coin] = await judged(solSignature);
    expect(token).toMatchObject({
      outcome: 'unsolicited',
      asset: usdc().caip19,
      amount: '4000000',
      sender: `${solana().caip2}:${testbed.buyer('alice').solanaAddress}`,
    });
    expect(coin).toMatchObject({
      outcome: 'unsolicited',
      asset: sol().caip19,
      amount: '20000000',
      sender: `${solana().caip2}:${testbed.buyer('bob').solanaAddress}`,
    });
    expect(await ledgerBalanceOf(testbed.server.db, 'unsolicited', usdc().caip19)).toBe(4_000_000n);
    expect(await ledgerBalanceOf(testbed.server.db, 'unsolicited', sol().caip19)).toBe(20_000_000n);
    expect(await differingOnSolana()).toEqual([]);
    expect((await auditUnsolicitedInflows(testbed.server.db)).filter((line) => line.difference !== '0')).toEqual([]);
  });

  it('leaves a gateway payment into the collector and the operator’s funding recorded, not owed twice', async () => {
    const paymentId = await payInUsdc(testbed, testbed.merchantId, 'solana', 300n);
    const payment = await testbed.server.db
      .selectFrom('payments')
      .select('tx_hash')
      .where('id', '=', paymentId)
      .executeTakeFirstOrThrow();
    const funded = await testbed.devnet.fund({ solana: [collector()] });
    const fundingSignatures = funded.flatMap((amount) => (amount.txHash ? [amount.txHash] : []));
    expect(fundingSignatures).toHaveLength(2);
    await recordFunding(testbed.server.db, funded);
    // A later plain transfer is judged only after the earlier transactions were read: all three are behind it.
    const marker = await sendUsdc(await devnetBuyer('alice'), 1_000n);
    await judged(marker);

    expect(await inflowsOf(payment.tx_hash as string)).toEqual([]);
    for (const signature of fundingSignatures)
      expect((await inflowsOf(signature)).map((row) => row.outcome)).toEqual(['recorded']);
    expect(await differingOnSolana()).toEqual([]);
    expect(await auditNegativeBalances(testbed.server.db)).toEqual([]);
  });

  it('owes a Solana Pay transfer read after it was judged unsolicited once, as the unsolicited transfer', async () => {
    // A request shown on an expired payment's page is paid while no payment has a request open: the Solana Pay
    // follower is idle, so the inflow follower judges the transfer first.
    const { paymentId, gatewayUrl } = await testbed.newPayment();
    const request = await transferRequestOnPage(gatewayUrl);
    await expirePaymentNow(testbed.server.ctx, paymentId);
    const alice = await devnetBuyer('alice');
    const signature = await sendAs(alice, await usdcTransfer(alice, 10_000_000n, collector(), request.references));
    const [inflow] = await judged(signature);
    expect(inflow).toMatchObject({ outcome: 'unsolicited', amount: '10000000' });
    const buyersBefore = await ledgerBalanceOf(testbed.server.db, `buyers:${testbed.merchantId}`, usdc().caip19);

    // Another payment's page opens a request: the Solana Pay follower reads the collector's account from where it
    // stopped, finds the transfer with the expired payment's reference, and records no payment exception for it.
    await transferRequestOnPage((await testbed.newPayment()).gatewayUrl);
    const read = await sendUsdc(alice, 1_000n);
    await expect
      .poll(
        async () =>
          (
            await withSolanaPayTables(testbed.server.db)
              .selectFrom('solana_pay_cursors')
              .select('last_signature')
              .where('network', '=', solana().caip2)
              .execute()
          ).some((cursor) => cursor.last_signature === read),
        { timeout: 60_000, interval: 1_000 },
      )
      .toBe(true);
    expect(
      await withSolanaPayTables(testbed.server.db)
        .selectFrom('solana_pay_transfers')
        .select('signature')
        .where('signature', '=', signature)
        .execute(),
    ).toEqual([]);
    expect(await ledgerBalanceOf(testbed.server.db, `buyers:${testbed.merchantId}`, usdc().caip19)).toBe(buyersBefore);
    await judged(read);
    expect(await differingOnSolana()).toEqual([]);
    expect(await auditNegativeBalances(testbed.server.db)).toEqual([]);
  });

  it('sends unsolicited SOL and tokens back to their senders once, paid out of what each is owed', async () => {
    // A wallet of its own, so that no other test's transfers move its balances.
    const sender = await createKeyPairSignerFromPrivateKeyBytes(randomBytes(32));
    const alice = await devnetBuyer('alice');
    await sendSol(alice, 100_000_000n, sender.address);
    await sendUsdc(alice, 5_000_000n, sender.address);
    const before = await balancesOf(sender.address);
    const tokenSignature = await sendUsdc(sender, 2_500_000n);
    const solSignature = await sendSol(sender, 30_000_000n);
    const [token] = await judged(tokenSignature);
    const [coin] = await judged(solSignature);
    const owedBefore = await ledgerBalanceOf(testbed.server.db, 'unsolicited', usdc().caip19);

    await Promise.all([askInflowReturn(testbed.server.db, token!.id), askInflowReturn(testbed.server.db, token!.id)]);
    const asked = await runCli(['inflows', 'return', coin!.id], { DATABASE_URL: testbed.databaseUrl, ...NO_CHAIN_ENV });
    expect(asked.code, asked.stderr).toBe(0);
    expect(await ledgerBalanceOf(testbed.server.db, 'unsolicited', usdc().caip19)).toBe(owedBefore - 2_500_000n);

    await returnedAll([tokenSignature, solSignature]);
    const after = await balancesOf(sender.address);
    expect(after.tokens[usdc().address]).toBe(before.tokens[usdc().address]);
    // Back in full: the sender paid only the fees of its own two transactions, 5,000 lamports a signature.
    expect(before.lamports - after.lamports).toBe(10_000n);
    const journaled = await testbed.server.db
      .selectFrom('solana_transactions')
      .select('reference')
      .where('purpose', '=', 'inflow_return')
      .where('reference', 'in', [`${token!.id}/1`, `${coin!.id}/1`])
      .execute();
    expect(journaled).toHaveLength(2);
    // The returns are the collector's own transactions: no inflow of theirs is recorded.
    await judged(await sendUsdc(alice, 1_000n));
    expect(await differingOnSolana()).toEqual([]);
    expect(await auditPayoutsInFlight(testbed.server.db)).toEqual([]);
    expect((await auditUnsolicitedInflows(testbed.server.db)).filter((line) => line.difference !== '0')).toEqual([]);
    expect(await auditNegativeBalances(testbed.server.db)).toEqual([]);
  });
});
