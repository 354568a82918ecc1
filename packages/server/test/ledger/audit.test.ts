import { type Kysely, sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { inTransaction } from '../../src/db/database.ts';
import { up as createLedger } from '../../src/db/migrations/0034_ledger.ts';
import { up as openDeposits } from '../../src/db/migrations/0040_opening_deposits.ts';
import { withDepositTables } from '../../src/deposits/depositTables.ts';
import { auditMerchantBalances } from '../../src/ledger/audit.ts';
import {
  COLLECTOR,
  DEPOSIT_ADDRESSES,
  FEES,
  merchantAccount,
  postDepositsSwept,
  postLedgerEntry,
  postTransferReceived,
} from '../../src/ledger/ledger.ts';
import { insertMerchantWithPayments } from '../support/fixtures.ts';
import { isolatedTestDatabase } from '../support/isolatedDatabase.ts';
import { NO_CHAIN_ENV, runCli } from '../support/serverProcess.ts';
import { newPartner } from '../support/testServer.ts';

const USDC = 'eip155:31337/erc20:0x5fbdb2315678afecb367f032d93f642f64180aa3';

describe('paygate audit: the ledger against the records', () => {
  // Each step runs the command line as a process of its own, a few seconds each on a busy machine.
  it('passes while every succeeded payment has its entry, and names the merchant, asset and difference when one has not', async () => {
    const { url: databaseUrl, db } = await isolatedTestDatabase();
    const audit = async () => {
      const run = await runCli(['audit', '--no-chain'], { DATABASE_URL: databaseUrl });
      return {
        ...run,
        lines: run.stdout
          .trim()
          .split('\n')
          .filter(Boolean)
          .map((line) => JSON.parse(line)),
      };
    };

    const empty = await audit();
    expect({ code: empty.code, lines: empty.lines }).toEqual({ code: 0, lines: [] });

    const partner = await newPartner(db);
    await db
      .insertInto('merchants')
      .values({ id: 'mrch_audited', partner_id: partner.partnerId, name: 'Audited', email: 'audit@shop.example' })
      .execute();
    // A payment made succeeded behind the service's back: the records say the merchant is owed, the ledger not.
    await db
      .insertInto('payments')
      .values({
        id: 'pay_audited',
        partner_id: partner.partnerId,
        merchant_id: 'mrch_audited',
        reference_id: 'audited',
        fiat_currency: 'USD',
        fiat_value: '1000',
        expires_at: new Date(Date.now() + 600_000),
        status: 'succeeded',
        token_asset: USDC,
        token_value: '10000000',
        fee_total: '450000',
        settlement_amount: '9550000',
      })
      .execute();
    const differs = await audit();
    expect(differs.code).toBe(1);
    expect(differs.stderr).toBe('paygate: 1 balance(s) differ between the ledger and the records or the chain\n');
    expect(differs.lines).toEqual([
      {
        check: 'merchant_balance',
        merchantId: 'mrch_audited',
        asset: USDC,
        ledger: '0',
        records: '9550000',
        difference: '-9550000',
      },
    ]);

    await inTransaction(db, (trx) =>
      postLedgerEntry(trx, 'payment:pay_audited', [
        { account: COLLECTOR, asset: USDC, amount: 10_000_000n },
        { account: merchantAccount('mrch_audited'), asset: USDC, amount: -9_550_000n },
        { account: FEES, asset: USDC, amount: -450_000n },
      ]),
    );
    const clean = await audit();
    expect({ code: clean.code, stderr: clean.stderr }).toEqual({
      code: 0,
      stderr: `paygate: audit: ${clean.lines.length} balance(s) checked (not against the chain), none differs\n`,
    });
    expect(clean.lines).toEqual([
      expect.objectContaining({ merchantId: 'mrch_audited', ledger: '9550000', records: '9550000', difference: '0' }),
    ]);

    // Funding from outside is recorded by the operator, checked first, in a token of the configured networks
    // spelled as the registry has it (here the mainnet preset, whose node is never asked).
    const fund = (...args: string[]) =>
      runCli(['ledger', 'fund', ...args], { DATABASE_URL: databaseUrl, ...NO_CHAIN_ENV });
    const baseUsdc = 'eip155:8453/erc20:0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';
    const notAToken = await fund('--asset', USDC, '--amount', '5');
    expect({ code: notAToken.code, stderr: notAToken.stderr }).toEqual({
      code: 1,
      stderr: `paygate: --asset ${USDC} is no token of the configured networks (CHAINS)\n`,
    });
    for (const amount of ['0', '1.5', 'ten', '007']) {
      const refused = await fund('--asset', baseUsdc, '--amount', amount);
      expect({ amount, code: refused.code, stderr: refused.stderr }).toEqual({
        amount,
        code: 1,
        stderr: expect.stringContaining('--amount must be a whole number'),
      });
    }
    // Taken out: never more than the account it comes from holds (the operator's funding, or the fees).
    const takenTooEarly = await fund('--asset', baseUsdc, '--amount', '-250');
    expect({ code: takenTooEarly.code, stderr: takenTooEarly.stderr }).toEqual({
      code: 1,
      stderr: `paygate: operator holds 0 of ${baseUsdc}: 250 cannot be taken out (250 short)\n`,
    });
    const put = await fund('--asset', baseUsdc, '--amount', '1000', '--reference', 'top-up-1');
    expect(put.code, put.stderr).toBe(0);
    const fromFees = await fund('--asset', baseUsdc, '--amount', '-1', '--from', 'fees');
    expect(fromFees.stderr).toBe(`paygate: fees holds 0 of ${baseUsdc}: 1 cannot be taken out (1 short)\n`);
    const fromElsewhere = await fund('--asset', baseUsdc, '--amount', '-1', '--from', 'merchant:mrch_audited');
    expect(fromElsewhere.stderr).toBe('paygate: --from must be operator or fees\n');
    const args = ['--asset', baseUsdc.toLowerCase(), '--amount', '-250', '--reference', 'withdrawal-1'];
    const funded = await fund(...args);
    expect(funded.code, funded.stderr).toBe(0);
    expect(JSON.parse(funded.stdout)).toEqual({
      entry: 'funding:withdrawal-1',
      asset: baseUsdc,
      amount: '-250',
      recorded: true,
    });
    const again = await fund(...args);
    expect(JSON.parse(again.stdout)).toMatchObject({ entry: 'funding:withdrawal-1', recorded: false });
    expect(
      await db
        .selectFrom('ledger_entries')
        .select(['account', 'asset', 'amount'])
        .where('entry', '=', 'funding:withdrawal-1')
        .orderBy('account')
        .execute(),
    ).toEqual([
      { account: 'collector', asset: baseUsdc, amount: '-250' },
      { account: 'operator', asset: baseUsdc, amount: '250' },
    ]);
    const tooMuch = await fund('--asset', baseUsdc, '--amount', '-751');
    expect(tooMuch.stderr).toBe(`paygate: operator holds 750 of ${baseUsdc}: 751 cannot be taken out (1 short)\n`);

    // A Solana network's SOL pays the collector's fees there, so the operator funds it even where the network lists
    // no SOL for payments (the preset lists none); an EVM network's unlisted coin is no asset of the ledger.
    const sol = 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp/slip44:501';
    const gasMoney = await runCli(['ledger', 'fund', '--asset', sol, '--amount', '50000000'], {
      DATABASE_URL: databaseUrl,
      ...NO_CHAIN_ENV,
      RPC_URL_SOLANA_5EYKT4USFV8P8NJDTREPY1VZQKQZKVDP: 'http://127.0.0.1:9',
    });
    expect(gasMoney.code, gasMoney.stderr).toBe(0);
    expect(JSON.parse(gasMoney.stdout)).toMatchObject({ asset: sol, amount: '50000000', recorded: true });
    const baseEther = await fund('--asset', 'eip155:8453/slip44:60', '--amount', '5');
    expect(baseEther.stderr).toBe(
      'paygate: --asset eip155:8453/slip44:60 is no token of the configured networks (CHAINS)\n',
    );
  }, 180_000);

  it('refuses an entry that does not balance, at commit however it was written, and any change to a line', async () => {
    const { db } = await isolatedTestDatabase();
    await expect(
      inTransaction(db, (trx) =>
        postLedgerEntry(trx, 'payment:pay_lopsided', [
          { account: COLLECTOR, asset: USDC, amount: 10n },
          { account: FEES, asset: USDC, amount: -9n },
        ]),
      ),
    ).rejects.toThrow('ledger entry payment:pay_lopsided does not balance');
    await expect(
      sql`INSERT INTO ledger_entries (entry, account, asset, amount) VALUES ('raw', 'collector', ${USDC}, 10)`.execute(
        db,
      ),
    ).rejects.toThrow('ledger entry raw does not balance');
    await inTransaction(db, (trx) =>
      postLedgerEntry(trx, 'payment:pay_even', [
        { account: COLLECTOR, asset: USDC, amount: 10n },
        { account: FEES, asset: USDC, amount: -10n },
      ]),
    );
    await expect(sql`UPDATE ledger_entries SET amount = 11 WHERE amount = 10`.execute(db)).rejects.toThrow(
      'ledger lines are never changed or removed',
    );
    await expect(sql`DELETE FROM ledger_entries`.execute(db)).rejects.toThrow('ledger lines are never changed');
    const { rows } = await sql<{ count: string }>`SELECT count(*)::text AS count FROM ledger_entries`.execute(db);
    expect(rows[0]?.count).toBe('2');
  });

  it('opens with what the records say merchants are owed when it is added to a database in use', async () => {
    const { db } = await isolatedTestDatabase();
    // The database as it was before the ledger's migration, holding a merchant's payments and a refund.
    await sql`
      DROP TABLE ledger_entries;
      DROP FUNCTION ledger_entry_balances();
      DROP FUNCTION ledger_entries_unchanged();
      ALTER TABLE evm_transactions DROP COLUMN fee_paid;
    `.execute(db);
    const partner = await newPartner(db);
    await db
      .insertInto('merchants')
      .values({ id: 'mrch_opening', partner_id: partner.partnerId, name: 'Opening', email: 'open@shop.example' })
      .execute();
    const payment = (id: string, settlementAmount: string, settled: boolean) => ({
      id,
      partner_id: partner.partnerId,
      merchant_id: 'mrch_opening',
      reference_id: id,
      fiat_currency: 'USD',
      fiat_value: '1000',
      expires_at: new Date(Date.now() + 600_000),
      status: 'succeeded' as const,
      token_asset: USDC,
      token_value: '10000000',
      fee_total: '450000',
      settlement_amount: settlementAmount,
      ...(settled ? { settled_at: new Date() } : {}),
    });
    await db
      .insertInto('payments')
      .values([payment('pay_open_1', '9550000', false), payment('pay_open_2', '9550000', true)])
      .execute();
    await db
      .insertInto('refunds')
      .values({
        id: 'rfd_open',
        partner_id: partner.partnerId,
        merchant_id: 'mrch_opening',
        payment_id: 'pay_open_2',
        method: 'onchain',
        status: 'succeeded',
        fiat_currency: 'USD',
        fiat_value: '100',
        token_asset: USDC,
        token_value: '1000000',
        destination: null,
        tx_hash: null,
        failure_reason: null,
        completed_at: new Date(),
      })
      .execute();
    await createLedger(db as unknown as Kysely<unknown>);
    expect(await auditMerchantBalances(db)).toEqual([
      { merchantId: 'mrch_opening', asset: USDC, ledger: '8550000', records: '8550000', difference: '0' },
    ]);
    expect(
      await db.selectFrom('ledger_entries').select(['entry', 'account', 'amount']).orderBy('account').execute(),
    ).toEqual([
      { entry: 'opening:mrch_opening', account: 'merchant:mrch_opening', amount: '-8550000' },
      { entry: 'opening:mrch_opening', account: 'opening_balances', amount: '8550000' },
    ]);
  });

  it('opens the deposit addresses with the deposits recorded before the ledger that are not swept, or swept since', async () => {
    const { db } = await isolatedTestDatabase();
    await sql`
      DROP TABLE ledger_entries;
      DROP FUNCTION ledger_entry_balances();
      DROP FUNCTION ledger_entries_unchanged();
      ALTER TABLE evm_transactions DROP COLUMN fee_paid;
    `.execute(db);
    const chain = 'eip155:31337';
    const token = USDC.split(':').at(-1) as string;
    const addresses = { pay_dep_1: `0x${'1'.repeat(40)}`, pay_dep_2: `0x${'2'.repeat(40)}` };
    await insertMerchantWithPayments(db, 'mrch_deposits', Object.keys(addresses));
    const deposit = (
      tx: string,
      paymentId: keyof typeof addresses,
      amount: bigint,
      swept_by: string | null = null,
    ) => ({
      chain,
      tx_hash: `0x${tx.repeat(64)}`,
      log_index: 3,
      payment_id: paymentId,
      address: addresses[paymentId],
      token,
      asset: USDC,
      from_address: `0x${'b'.repeat(40)}`,
      amount,
      block_number: 100n,
      block_hash: `0x${'f'.repeat(64)}`,
      outcome: 'paid' as const,
      swept_by,
    });
    const unswept = deposit('a', 'pay_dep_1', 7_000_000n);
    const sweptBefore = deposit('b', 'pay_dep_2', 3_000_000n, 'etx_before_the_ledger');
    const sweptSince = deposit('c', 'pay_dep_2', 4_000_000n);
    const unlisted = { ...deposit('e', 'pay_dep_1', 5n), token: `0x${'e'.repeat(40)}`, asset: null };
    // The database as it was before the ledger: deposits recorded, one of them swept already.
    await withDepositTables(db)
      .insertInto('evm_deposits')
      .values([unswept, sweptBefore, sweptSince, unlisted])
      .execute();
    await createLedger(db as unknown as Kysely<unknown>);

    const nameOf = (row: { chain: string; tx_hash: string; log_index: number }) =>
      `${row.chain}:${row.tx_hash}:${row.log_index}`;
    const sweep = (rows: ReturnType<typeof deposit>[], sweepId: string) =>
      inTransaction(db, async (trx) => {
        await withDepositTables(trx)
          .updateTable('evm_deposits')
          .set({ swept_by: sweepId })
          .where(
            'tx_hash',
            'in',
            rows.map((row) => row.tx_hash),
          )
          .execute();
        await postDepositsSwept(
          trx,
          rows.map((row) => ({ ...row, amount: row.amount.toString() })),
        );
      });
    // Since the ledger: a deposit recorded before it is swept, and one is recorded with its own entry.
    await sweep([sweptSince], 'etx_since_the_ledger');
    const received = deposit('d', 'pay_dep_2', 2_000_000n);
    await inTransaction(db, async (trx) => {
      await withDepositTables(trx).insertInto('evm_deposits').values(received).execute();
      await postTransferReceived(trx, `deposit:${nameOf(received)}`, {
        heldBy: DEPOSIT_ADDRESSES,
        merchantId: 'mrch_deposits',
        asset: USDC,
        amount: received.amount,
      });
    });

    await openDeposits(db as unknown as Kysely<unknown>);
    const entries = () =>
      db
        .selectFrom('ledger_entries')
        .select(['entry', 'account', 'asset', 'amount'])
        .where('entry', 'like', 'opening:deposit:%')
        .orderBy('entry')
        .orderBy('account')
        .execute();
    const opened = [
      { entry: `opening:deposit:${nameOf(unswept)}`, account: DEPOSIT_ADDRESSES, asset: USDC, amount: '7000000' },
      { entry: `opening:deposit:${nameOf(unswept)}`, account: 'opening_balances', asset: USDC, amount: '-7000000' },
      { entry: `opening:deposit:${nameOf(sweptSince)}`, account: DEPOSIT_ADDRESSES, asset: USDC, amount: '4000000' },
      {
        entry: `opening:deposit:${nameOf(sweptSince)}`,
        account: 'opening_balances',
        asset: USDC,
        amount: '-4000000',
      },
    ];
    expect(await entries()).toEqual(opened);
    const held = async () => {
      const { rows } = await sql<{ amount: string }>`
        SELECT coalesce(sum(amount), 0)::text AS amount FROM ledger_entries WHERE account = ${DEPOSIT_ADDRESSES}
      `.execute(db);
      return rows[0]?.amount;
    };
    expect(await held()).toBe('9000000');
    await sweep([unswept, received], 'etx_sweep');
    expect(await held()).toBe('0');
    // Run again, it writes nothing.
    await openDeposits(db as unknown as Kysely<unknown>);
    expect(await entries()).toEqual(opened);
  });

  it('opens no deposits on a fresh database, nor on one whose deposits all have their entries', async () => {
    const { db } = await isolatedTestDatabase();
    const count = async () =>
      (await sql<{ count: string }>`SELECT count(*)::text AS count FROM ledger_entries`.execute(db)).rows[0]?.count;
    await openDeposits(db as unknown as Kysely<unknown>);
    expect(await count()).toBe('0');

    await insertMerchantWithPayments(db, 'mrch_entered', ['pay_entered']);
    const deposit = (tx: string) => ({
      chain: 'eip155:31337',
      tx_hash: `0x${tx.repeat(64)}`,
      log_index: 0,
      payment_id: 'pay_entered',
      address: `0x${'3'.repeat(40)}`,
      token: USDC.split(':').at(-1) as string,
      asset: USDC,
      from_address: `0x${'b'.repeat(40)}`,
      amount: '1000000',
      block_number: 100n,
      block_hash: `0x${'f'.repeat(64)}`,
      outcome: 'paid' as const,
    });
    // One deposit held at its address, one swept since: each recorded with its entries.
    await inTransaction(db, async (trx) => {
      for (const row of [deposit('a'), deposit('c')]) {
        await withDepositTables(trx).insertInto('evm_deposits').values(row).execute();
        await postTransferReceived(trx, `deposit:${row.chain}:${row.tx_hash}:${row.log_index}`, {
          heldBy: DEPOSIT_ADDRESSES,
          merchantId: 'mrch_entered',
          asset: USDC,
          amount: BigInt(row.amount),
        });
      }
      await withDepositTables(trx)
        .updateTable('evm_deposits')
        .set({ swept_by: 'etx_entered' })
        .where('tx_hash', '=', deposit('c').tx_hash)
        .execute();
      await postDepositsSwept(trx, [deposit('c')]);
    });
    expect(await count()).toBe('6');
    await openDeposits(db as unknown as Kysely<unknown>);
    expect(await count()).toBe('6');
  });
});
