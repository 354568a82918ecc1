import { type Static, Type } from '@sinclair/typebox';
import { type Address, getAddress } from 'viem';
import type { ChainRegistry } from '../chains/registry.ts';
import type { Db } from '../db/database.ts';
import { type PaymentRow, TokenAmount, tokenAmountOf } from '../payments/paymentResource.ts';
import { withDepositTables } from './depositTables.ts';
import { eip681TransferUri } from './eip681.ts';

export const ReceivedPart = Type.Object(
  {
    amount: { ...TokenAmount, description: 'What arrived so far in this token.' },
    expected: { ...TokenAmount, description: 'What the payment asks for in this token.' },
    remaining: { ...TokenAmount, description: 'What is still to send: expected less amount.' },
    address: Type.String({ description: "The payment's deposit address for this token, where the rest goes." }),
    uri: Type.String({ description: 'The EIP-681 request for the rest, for a wallet app to scan or open.' }),
  },
  {
    description:
      'paygate extension: a token in which the buyer sent less than asked. The payment waits for the rest at the same address until it expires.',
  },
);

export type ReceivedPart = Static<typeof ReceivedPart>;

/**
 * What transfers of less than asked brought towards `payment` while it is unpaid, each with where its rest goes:
 * the deposit address the first part went to, and an EIP-681 request for the amount still missing. Empty when
 * nothing partial arrived.
 */
export async function receivedParts(
  ctx: { db: Db; chains: ChainRegistry },
  payment: PaymentRow,
): Promise<ReceivedPart[]> {
  const underpaid = payment.exceptions.filter((exception) => exception.type === 'underpaid' && exception.expected);
  if (!underpaid.length) return [];
  const quotes = await withDepositTables(ctx.db)
    .selectFrom('evm_deposit_quotes')
    .select(['chain', 'asset', 'address'])
    .where('payment_id', '=', payment.id)
    .execute();
  return underpaid.flatMap((exception) => {
    const quote = quotes.find((row) => row.chain === exception.network && row.asset === exception.asset);
    const token = ctx.chains.token(exception.asset);
    if (!quote || !token) return [];
    const remaining = BigInt(exception.expected as string) - BigInt(exception.amount);
    if (remaining <= 0n) return [];
    // As the page shows it: with its EIP-55 checksum.
    const address = getAddress(quote.address);
    return [
      {
        amount: tokenAmountOf(ctx.chains, exception.asset, exception.amount),
        expected: tokenAmountOf(ctx.chains, exception.asset, exception.expected as string),
        remaining: tokenAmountOf(ctx.chains, exception.asset, remaining.toString()),
        address,
        uri: eip681TransferUri({
          chainId: Number(exception.network.slice('eip155:'.length)),
          recipient: address,
          amount: remaining,
          ...(token.address ? { token: token.address as Address } : {}),
        }),
      },
    ];
  });
}
