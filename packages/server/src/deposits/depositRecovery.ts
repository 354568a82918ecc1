import { sql } from 'kysely';
import type { Db } from '../db/database.ts';
import { newId } from '../ids.ts';
import { UserFacingError } from '../userFacingError.ts';
import { withDepositTables } from './depositTables.ts';
import { DEPOSIT_SWEEP_PURPOSE, MAX_FAILED_SWEEPS } from '../chains/evm/deposits/sweeper.ts';

/**
 * Transfers of tokens their network does not list, still at deposit addresses: any contract can send or log such a
 * transfer, so the service neither counts nor moves them by itself. One line per payment, network and token, with
 * the state of the operator's last recovery request.
 */
export async function unlistedDeposits(db: Db) {
  const { rows } = await sql<{
    paymentId: string;
    network: string;
    token: string;
    address: string;
    transfers: string;
    amount: string;
    recoveryId: string | null;
    recovery: string | null;
  }>`
    SELECT deposit.payment_id AS "paymentId", deposit.chain AS network, deposit.token, deposit.address,
           count(*)::text AS transfers, sum(deposit.amount)::text AS amount,
           recovery.id AS "recoveryId",
           CASE WHEN recovery.id IS NULL THEN NULL
                WHEN recovery.done_at IS NULL THEN 'requested'
                ELSE sweep.status END AS recovery
    FROM evm_deposits deposit
    LEFT JOIN LATERAL (
      SELECT id, sweep_id, done_at FROM evm_deposit_recoveries
      WHERE payment_id = deposit.payment_id AND chain = deposit.chain AND token = deposit.token
      ORDER BY requested_at DESC LIMIT 1
    ) recovery ON true
    LEFT JOIN evm_transactions sweep ON sweep.id = recovery.sweep_id
    WHERE deposit.asset IS NULL AND deposit.swept_by IS NULL
    GROUP BY 1, 2, 3, 4, 7, 8
    ORDER BY min(deposit.created_at)
  `.execute(db);
  return rows;
}

/** What `paygate deposits recover` names: a payment's deposit address, or a merchant's own (its x402 `payTo`). */
export type RecoveryRequest = { network: string; token: string } & ({ paymentId: string } | { merchantId: string });

/**
 * Asks the network's sweeper (in the running service) to move one token from a payment's deposit address, or from a
 * merchant's own address, to the collector, paying the gas: a token the network does not list, a listed one whose
 * sweeps failed too often, or any token the follower did not record (read later while many addresses are open, sent
 * after the address stopped being watched, or sent straight to a merchant's address with no x402 payment), as the
 * operator saw it on the chain. Refused for the native coin (swept with the payment), while recorded transfers of the
 * token wait for their own sweep, for a payment with no deposit address on the network, for a merchant that does not
 * exist, and while a request for it is open. The token's contract runs in the sweep, so the operator decides; the
 * service never does.
 */
export async function requestRecovery(db: Db, request: RecoveryRequest) {
  if (!/^0x[0-9a-fA-F]{40}$/.test(request.token) || /^0x0{40}$/.test(request.token))
    throw new UserFacingError('--token must be a token contract address (0x and 40 hex digits, not the zero address)');
  const token = request.token.toLowerCase();
  const owner =
    'merchantId' in request
      ? { kind: 'merchant' as const, id: request.merchantId }
      : { kind: 'payment' as const, id: request.paymentId };
  const ownerName = `${owner.kind} ${owner.id}`;
  const tables = withDepositTables(db);
  if (owner.kind === 'merchant') {
    const merchant = await db.selectFrom('merchants').select('id').where('id', '=', owner.id).executeTakeFirst();
    if (!merchant) throw new UserFacingError(`no merchant ${owner.id}`);
  }
  const failedSweeps = await db
    .selectFrom('evm_transactions')
    .select(sql<string>`count(*)::text`.as('count'))
    .where('chain', '=', request.network)
    .where('purpose', '=', DEPOSIT_SWEEP_PURPOSE)
    .where('payment_id', '=', owner.id)
    .where('status', '=', 'failed')
    .executeTakeFirstOrThrow();
  // The deposits recorded at the owner's address: a merchant's are its x402 payments' transfers.
  const atOwnersAddress = () => {
    const deposits = tables.selectFrom('evm_deposits').where('chain', '=', request.network).where('token', '=', token);
    return owner.kind === 'merchant'
      ? deposits.where('address_merchant_id', '=', owner.id)
      : deposits.where('payment_id', '=', owner.id).where('address_merchant_id', 'is', null);
  };
  const sweepDue =
    Number(failedSweeps.count) < MAX_FAILED_SWEEPS &&
    (await atOwnersAddress()
      .select('tx_hash')
      .where('asset', 'is not', null)
      .where('swept_by', 'is', null)
      .executeTakeFirst());
  if (sweepDue) {
    throw new UserFacingError(
      `transfers of ${token} to ${ownerName} on ${request.network} are recorded and swept without asking`,
    );
  }
  const watched =
    owner.kind === 'merchant' ||
    (await tables
      .selectFrom('evm_deposit_quotes')
      .select('address')
      .where('payment_id', '=', owner.id)
      .where('chain', '=', request.network)
      .executeTakeFirst());
  const held = await atOwnersAddress()
    .select([sql<string>`count(*)::text`.as('transfers'), sql<string | null>`sum(amount)::text`.as('amount')])
    .where('asset', 'is', null)
    .where('swept_by', 'is', null)
    .executeTakeFirstOrThrow();
  if (held.transfers === '0' && !watched) {
    throw new UserFacingError(
      `no transfer of unlisted token ${token} to payment ${owner.id} on ${request.network} is left to recover, and the payment has no deposit address there (see \`paygate deposits unlisted\`)`,
    );
  }
  const id = newId('rcv');
  const inserted = await tables
    .insertInto('evm_deposit_recoveries')
    .values({
      id,
      ...(owner.kind === 'merchant' ? { merchant_id: owner.id } : { payment_id: owner.id }),
      chain: request.network,
      token,
    })
    .onConflict((conflict) =>
      owner.kind === 'merchant'
        ? conflict
            .columns(['merchant_id', 'chain', 'token'])
            .where('done_at', 'is', null)
            .where('merchant_id', 'is not', null)
            .doNothing()
        : conflict.columns(['payment_id', 'chain', 'token']).where('done_at', 'is', null).doNothing(),
    )
    .returning('id')
    .executeTakeFirst();
  if (!inserted) throw new UserFacingError(`a recovery of ${token} for ${ownerName} is already under way`);
  // With no transfer recorded, the amount is what the address holds when the sweep runs.
  return { recoveryId: id, ...request, token, transfers: Number(held.transfers), amount: held.amount };
}
