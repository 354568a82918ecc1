import { exceptionsOnSuccess, type PaymentException } from '../payments/paymentExceptions.ts';
import type { EvmDepositOutcome } from './depositTables.ts';

/**
 * What a transfer to a payment's deposit address does: a sender the operator's screening blocks is held; a token the
 * payment has no amount for is the wrong token; a payment no longer payable was paid late; otherwise the transfer
 * adds to what earlier transfers of that token brought, and the total pays the payment when it reaches the amount
 * asked (more is overpaid).
 */
export function judgeDeposit(deposit: {
  /** The operator's address screening blocks the sender. */
  senderBlocked?: boolean;
  /** What the payment asks for in the token; undefined when it does not take the token. */
  expected: bigint | undefined;
  payable: boolean;
  /** What earlier transfers of the token to the address brought while the payment was payable. */
  receivedBefore: bigint;
  amount: bigint;
}): { outcome: EvmDepositOutcome; received: bigint } {
  if (deposit.senderBlocked) return { outcome: 'held', received: deposit.amount };
  if (deposit.expected === undefined) return { outcome: 'wrong_token', received: deposit.amount };
  if (!deposit.payable) return { outcome: 'paid_late', received: deposit.amount };
  const received = deposit.receivedBefore + deposit.amount;
  const outcome = received < deposit.expected ? 'underpaid' : received > deposit.expected ? 'overpaid' : 'paid';
  return { outcome, received };
}

/** What earlier transfers of `asset` brought towards a payment still waiting for the rest: its underpaid entry. */
export function receivedSoFar(exceptions: readonly PaymentException[], network: string, asset: string): bigint {
  const underpaid = exceptions.find(
    (exception) => exception.type === 'underpaid' && exception.network === network && exception.asset === asset,
  );
  return underpaid ? BigInt(underpaid.amount) : 0n;
}

export interface JudgedDeposit {
  /** The id of an exception this transfer starts. */
  exceptionId: string;
  /** How the buyer sent it. */
  provider?: string;
  outcome: EvmDepositOutcome;
  network: string;
  asset: string;
  amount: bigint;
  /** See `judgeDeposit`. */
  received: bigint;
  expected?: bigint;
  txHash: string;
  from: string;
  at: string;
}

/**
 * The payment's exceptions after a transfer: an underpaid token's one entry holds its running total and goes when
 * the payment is paid; once paid, what other tokens brought towards it is overpaid; a late, wrong-token or held
 * transfer is an entry of its own.
 */
export function exceptionsAfterDeposit(
  current: readonly PaymentException[],
  deposit: JudgedDeposit,
): PaymentException[] {
  const { outcome, network, asset, txHash, from, at } = deposit;
  const entry = {
    id: deposit.exceptionId,
    network,
    asset,
    txHash,
    from,
    at,
    ...(deposit.provider ? { provider: deposit.provider } : {}),
  };
  if (outcome === 'paid_late' || outcome === 'wrong_token' || outcome === 'held')
    return [...current, { ...entry, type: outcome, amount: deposit.amount.toString() }];
  const sameToken = (exception: PaymentException) =>
    exception.type === 'underpaid' && exception.network === network && exception.asset === asset;
  const others = current.filter((exception) => !sameToken(exception));
  const expected = deposit.expected ?? 0n;
  if (outcome === 'underpaid')
    return [
      ...others,
      {
        ...entry,
        id: current.find(sameToken)?.id ?? entry.id,
        type: 'underpaid',
        amount: deposit.received.toString(),
        expected: expected.toString(),
      },
    ];
  const otherTokensBrought = exceptionsOnSuccess(others) ?? others;
  if (outcome === 'paid') return otherTokensBrought;
  return [...otherTokensBrought, { ...entry, type: 'overpaid', amount: (deposit.received - expected).toString() }];
}
