import { generateKeyPair, getAddressFromPublicKey } from '@solana/kit';
import type { Db } from '../db/database.ts';
import { type SolanaPayRequestsTable, withSolanaPayTables } from '../chains/solana/solanaPayTables.ts';
import type { Selectable } from 'kysely';
import { markExpiryAwaitsFollower } from '../payments/expiryAwaitsFollower.ts';

export type SolanaPayRequest = Selectable<SolanaPayRequestsTable>;

export interface SolanaPayRequestSpec {
  payment: { id: string; expiry_awaits_follower: boolean };
  network: string;
  /** CAIP-19 id of the token. */
  asset: string;
  mint: string;
  decimals: number;
  /** The collector: the owner of the token account the transfer credits. */
  recipient: string;
  /** Token minor units: the quote for the token when the request is first made. */
  amount: bigint;
}

/** A fresh reference key: the public key of an ed25519 key pair whose private key is never kept. */
async function freshReference(): Promise<string> {
  const { publicKey } = await generateKeyPair();
  return getAddressFromPublicKey(publicKey);
}

/**
 * The payment's transfer request in the token, made the first time it is asked for with a fresh reference key and
 * the amount quoted then; later asks (another page load, another process) get the same one. The payment is marked
 * before its first request exists: from then on its expiry waits for the Solana Pay follower.
 */
export async function solanaPayRequestFor(db: Db, spec: SolanaPayRequestSpec): Promise<SolanaPayRequest> {
  const tables = withSolanaPayTables(db);
  const existing = await tables
    .selectFrom('solana_pay_requests')
    .selectAll()
    .where('payment_id', '=', spec.payment.id)
    .where('asset', '=', spec.asset)
    .executeTakeFirst();
  if (existing) return existing;
  await markExpiryAwaitsFollower(db, spec.payment);
  const inserted = await tables
    .insertInto('solana_pay_requests')
    .values({
      reference: await freshReference(),
      payment_id: spec.payment.id,
      network: spec.network,
      asset: spec.asset,
      mint: spec.mint,
      decimals: spec.decimals,
      recipient: spec.recipient,
      amount: spec.amount,
    })
    .onConflict((conflict) => conflict.columns(['payment_id', 'asset']).doNothing())
    .returningAll()
    .executeTakeFirst();
  if (inserted) return inserted;
  // Another request made it first.
  return tables
    .selectFrom('solana_pay_requests')
    .selectAll()
    .where('payment_id', '=', spec.payment.id)
    .where('asset', '=', spec.asset)
    .executeTakeFirstOrThrow();
}

/** The request named by its reference key, if the service made it. */
export function solanaPayRequestByReference(db: Db, reference: string): Promise<SolanaPayRequest | undefined> {
  return withSolanaPayTables(db)
    .selectFrom('solana_pay_requests')
    .selectAll()
    .where('reference', '=', reference)
    .executeTakeFirst();
}
