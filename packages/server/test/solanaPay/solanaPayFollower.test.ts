import { generateKeyPairSigner } from '@solana/kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { networksFromDevnet } from '../../src/chains/devnetNetworks.ts';
import { ChainRegistry, type NetworkInfo, type TokenInfo } from '../../src/chains/registry.ts';
import { SolanaPayFollower } from '../../src/chains/solana/solanaPayFollower.ts';
import { withSolanaPayTables } from '../../src/chains/solana/solanaPayTables.ts';
import type { Db } from '../../src/db/database.ts';
import { silentLogger } from '../../src/log.ts';
import { expireDuePayments, expirePaymentTask } from '../../src/payments/expiry.ts';
import { buyerFacingStatus, effectiveStatus } from '../../src/payments/stateMachine.ts';
import { solanaPayTransferOutcomes } from '../../src/solanaPay/solanaPayOutcomes.ts';
import { solanaPayRequestFor } from '../../src/solanaPay/solanaPayRequests.ts';
import { insertMerchantWithPayments } from '../support/fixtures.ts';
import { isolatedTestDatabase } from '../support/isolatedDatabase.ts';
import { type SolanaTestbed, startSolanaTestbed, waitFor } from '../chains/solana/solanaTestKit.ts';
import { payAsWallet } from './support.ts';
import { type AddressScreening, senderScreening } from '../../src/screening/addressScreening.ts';
import { loadScreeningList } from '../../src/screening/listScreening.ts';
import { parseScreeningList } from '../../src/screening/screeningListFile.ts';
import { screeningFromConfig } from '../../src/screening/screeningFromConfig.ts';
import { auditOfMerchant } from '../support/ledgerAudit.ts';

/** What a request asks for here: 10 USDC. */
const AMOUNT = 10_000_000n;

describe('the Solana Pay follower: transfers judged by when they were made, and every listed token that reaches the collector', () => {
  let testbed: SolanaTestbed;
  let network: NetworkInfo;
  let usdc: TokenInfo;
  /** A second token the network lists; no transfer of it is made here. */
  let other: TokenInfo;
  const clock = { now: () => new Date() };

  beforeAll(async () => {
    testbed = await startSolanaTestbed();
    const solana = networksFromDevnet(testbed.devnet.manifest).find((candidate) => candidate.namespace === 'solana');
    if (!solana) throw new Error('the devnet has no Solana network');
    usdc = solana.tokens.find((token) => token.symbol === 'USDC') as TokenInfo;
    const otherMint = (await generateKeyPairSigner()).address;
    other = {
      ...usdc,
      symbol: 'PYUSD',
      name: 'PayPal USD',
      address: otherMint,
      caip19: `${solana.caip2}/token:${otherMint}`,
    };
    network = { ...solana, tokens: [...solana.tokens, other] };
  }, 120_000);
  afterAll(() => testbed?.close());

  const chains = () => new ChainRegistry([network]);

  /** A database of the test's own with a merchant, and its unpaid payments expiring at `expiresAt`. */
  async function shop(name: string, paymentIds: string[], expiresAt: Date) {
    const { db } = await isolatedTestDatabase();
    await insertMerchantWithPayments(db, `mrch_${name}`, paymentIds, { expires_at: expiresAt });
    return db;
  }

  /** The payment's transfer request in `token`, made as its checkout page makes it. */
  async function requestOf(db: Db, paymentId: string, token: TokenInfo = usdc) {
    return solanaPayRequestFor(db, {
      payment: { id: paymentId, expiry_awaits_follower: false },
      network: network.caip2,
      asset: token.caip19,
      mint: token.address,
      decimals: token.decimals,
      recipient: testbed.collector.address,
      amount: AMOUNT,
    });
  }

  function follower(db: Db, screening?: AddressScreening) {
    return new SolanaPayFollower({
      ...(screening ? { screenSender: senderScreening(screening) } : {}),
      db,
      rpc: testbed.rpc,
      network: network.caip2,
      collector: testbed.collector.address,
      commitment: 'confirmed',
      tokens: network.tokens
        .filter((token) => token.method === 'spl')
        .map((token) => ({ mint: token.address, asset: token.caip19 })),
      clock,
      blockHeight: () => testbed.rpc.getBlockHeight({ commitment: 'confirmed' }).send(),
      onTransfer: solanaPayTransferOutcomes({ chains: chains(), baseUrl: () => '', clock, log: silentLogger }),
    });
  }

  /** Pays the request in USDC from a devnet buyer's plain wallet, once the node has confirmed it. */
  async function payInUsdc(reference: string, recipient: string) {
    const alice = testbed.devnet.manifest.buyers.find((buyer) => buyer.name === 'alice');
    if (!alice) throw new Error('no devnet buyer alice');
    const signature = await payAsWallet(testbed.devnet.manifest.solana.rpcUrl, alice.solanaSecretKey, [
      {
        request: {
          recipient,
          amount: '10',
          splToken: usdc.address,
          references: [reference],
          label: undefined,
          message: undefined,
          memo: undefined,
        },
      },
    ]);
    await waitFor(async () => {
      const [status] = (await testbed.rpc.getSignatureStatuses([signature as never]).send()).value;
      return status?.confirmationStatus === 'confirmed' || status?.confirmationStatus === 'finalized';
    });
    return signature;
  }

  const statusOf = async (db: Db, paymentId: string) =>
    (await db.selectFrom('payments').select('status').where('id', '=', paymentId).executeTakeFirstOrThrow()).status;

  it('keeps a payment unpaid while the follower is behind at its expiry; a transfer made in time, read late, pays it', async () => {
    const expiresAt = new Date(Date.now() + 4_000);
    const db = await shop('sp_behind', ['pay_sp_late_read', 'pay_sp_never_paid', 'pay_sp_gateway'], expiresAt);
    const paid = await requestOf(db, 'pay_sp_late_read');
    await requestOf(db, 'pay_sp_never_paid');
    const expiryContext = { db, chains: chains(), clock, config: { baseUrl: '' } as never };

    // Paid before the expiry; the follower (behind a slow node) reads it only after.
    const signature = await payInUsdc(paid.reference, paid.recipient);
    await new Promise((resolve) => setTimeout(resolve, Math.max(expiresAt.getTime() - Date.now(), 0) + 1_500));

    // Past the expiry: the payment without a request expires; those with one wait for the follower.
    expect(await expireDuePayments(expiryContext)).toBe(1);
    expect(await statusOf(db, 'pay_sp_gateway')).toBe('expired');
    expect(await statusOf(db, 'pay_sp_late_read')).toBe('requires_action');
    // An expiry job an earlier version queued leaves it waiting too.
    await expirePaymentTask(expiryContext)({ paymentId: 'pay_sp_never_paid' }, {} as never);
    expect(await statusOf(db, 'pay_sp_never_paid')).toBe('requires_action');
    // The merchant reads it unpaid meanwhile, so a final state it reads never changes; the buyer sees it closed.
    const held = await db
      .selectFrom('payments')
      .selectAll()
      .where('id', '=', 'pay_sp_never_paid')
      .executeTakeFirstOrThrow();
    expect([effectiveStatus(held, clock.now()), buyerFacingStatus(held, clock.now())]).toEqual([
      'requires_action',
      'expired',
    ]);

    // The follower reads the transfer: made before the expiry, it pays in time.
    await follower(db).follow();
    expect(await statusOf(db, 'pay_sp_late_read')).toBe('succeeded');
    expect(
      await withSolanaPayTables(db)
        .selectFrom('solana_pay_transfers')
        .select(['signature', 'outcome'])
        .where('payment_id', '=', 'pay_sp_late_read')
        .execute(),
    ).toEqual([{ signature, outcome: 'paid' }]);
    // Once the follower has read every transaction up to a slot made after the expiry (block times are whole
    // seconds, and a busy node's slots come late, so that may take another pass), the other one expires.
    const readThrough = async () =>
      (
        await withSolanaPayTables(db)
          .selectFrom('solana_pay_read_through')
          .select('read_through')
          .where('network', '=', network.caip2)
          .executeTakeFirstOrThrow()
      ).read_through.getTime();
    expect(await expireDuePayments(expiryContext)).toBe((await readThrough()) >= expiresAt.getTime() ? 1 : 0);
    await waitFor(async () => {
      await follower(db).follow();
      return (await readThrough()) >= expiresAt.getTime();
    });
    await expireDuePayments(expiryContext);
    expect(await statusOf(db, 'pay_sp_never_paid')).toBe('expired');
  });

  it('holds what a sender the address screening blocks paid: never credited, the exception owed to it in the ledger, the decision recorded', async () => {
    const db = await shop('sp_screened', ['pay_sp_screened'], new Date(Date.now() + 600_000));
    const alice = testbed.devnet.manifest.buyers.find((buyer) => buyer.name === 'alice')!;
    await loadScreeningList(db, parseScreeningList(alice.solanaAddress), 'test');
    const screening = screeningFromConfig({ provider: 'list', onFailure: 'closed' }, db, () => {});
    const request = await requestOf(db, 'pay_sp_screened');
    const signature = await payInUsdc(request.reference, request.recipient);

    await follower(db, screening).follow();
    expect(await statusOf(db, 'pay_sp_screened')).toBe('requires_action');
    expect(
      await withSolanaPayTables(db)
        .selectFrom('solana_pay_transfers')
        .select(['signature', 'outcome'])
        .where('payment_id', '=', 'pay_sp_screened')
        .execute(),
    ).toEqual([{ signature, outcome: 'held' }]);
    const { exceptions } = await db
      .selectFrom('payments')
      .select('exceptions')
      .where('id', '=', 'pay_sp_screened')
      .executeTakeFirstOrThrow();
    expect(exceptions).toEqual([
      expect.objectContaining({ type: 'held', amount: AMOUNT.toString(), txHash: signature }),
    ]);
    expect(await auditOfMerchant(db, 'mrch_sp_screened')).toMatchObject({ differing: [] });
    expect(
      await db
        .selectFrom('screening_decisions')
        .select(['account', 'step', 'blocked'])
        .where('payment_id', '=', 'pay_sp_screened')
        .execute(),
    ).toEqual([{ account: `${network.caip2}:${alice.solanaAddress}`, step: 'deposit', blocked: true }]);
  });

  it('records another listed token sent to the collector as the wrong token, held for its buyer in the ledger', async () => {
    const db = await shop('sp_wrong_token', ['pay_sp_wrong_token'], new Date(Date.now() + 600_000));
    // The request asks for the other token; the buyer's wallet sends USDC with its reference.
    const request = await requestOf(db, 'pay_sp_wrong_token', other);
    const signature = await payInUsdc(request.reference, request.recipient);

    await follower(db).follow();
    expect(
      await withSolanaPayTables(db)
        .selectFrom('solana_pay_transfers')
        .select(['outcome', 'mint', 'amount'])
        .where('signature', '=', signature)
        .execute(),
    ).toEqual([{ outcome: 'wrong_mint', mint: usdc.address, amount: AMOUNT.toString() }]);
    const payment = await db
      .selectFrom('payments')
      .select(['status', 'exceptions'])
      .where('id', '=', 'pay_sp_wrong_token')
      .executeTakeFirstOrThrow();
    expect(payment.status).toBe('requires_action');
    expect(payment.exceptions).toEqual([
      expect.objectContaining({
        type: 'wrong_token',
        asset: usdc.caip19,
        amount: AMOUNT.toString(),
        txHash: signature,
        provider: 'Solana Pay',
      }),
    ]);
    expect(
      await db
        .selectFrom('ledger_entries')
        .select(['account', 'asset', 'amount'])
        .where('entry', '=', `solana_pay:${signature}`)
        .orderBy('account')
        .execute(),
    ).toEqual([
      { account: 'buyers:mrch_sp_wrong_token', asset: usdc.caip19, amount: (-AMOUNT).toString() },
      { account: 'collector', asset: usdc.caip19, amount: AMOUNT.toString() },
    ]);
    // Read again, it is recorded once.
    await follower(db).follow();
    expect(
      await db.selectFrom('ledger_entries').select('entry').where('entry', '=', `solana_pay:${signature}`).execute(),
    ).toHaveLength(2);
  });
});
