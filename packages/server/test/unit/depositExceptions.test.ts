import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  exceptionsAfterDeposit,
  type JudgedDeposit,
  judgeDeposit,
  receivedSoFar,
} from '../../src/deposits/depositExceptions.ts';
import type { PaymentException } from '../../src/payments/paymentExceptions.ts';

const USDC = 'eip155:8453/erc20:0x833589fcd6edb6e08f4c7c32d4f71b54bda02913';
const USDT = 'eip155:8453/erc20:0xfde4c96c8593536e31f229ea8f37b2ada2699bb2';

function deposit(
  judged: ReturnType<typeof judgeDeposit>,
  asset: string,
  amount: bigint,
  expected?: bigint,
): JudgedDeposit {
  return {
    ...judged,
    exceptionId: `exc_${amount}`,
    provider: 'Solana Pay',
    network: 'eip155:8453',
    asset,
    amount,
    ...(expected === undefined ? {} : { expected }),
    txHash: `0x${amount.toString(16)}`,
    from: 'eip155:8453:0x0000000000000000000000000000000000000001',
    at: '2026-11-25T00:00:00.000Z',
  };
}

describe('deposit judgement', () => {
  it('judges by the total of the token, the payment being payable and the token being asked for', () => {
    expect(judgeDeposit({ expected: 10n, payable: true, receivedBefore: 0n, amount: 10n })).toEqual({
      outcome: 'paid',
      received: 10n,
    });
    expect(judgeDeposit({ expected: 10n, payable: true, receivedBefore: 4n, amount: 5n })).toEqual({
      outcome: 'underpaid',
      received: 9n,
    });
    expect(judgeDeposit({ expected: 10n, payable: true, receivedBefore: 4n, amount: 6n }).outcome).toBe('paid');
    expect(judgeDeposit({ expected: 10n, payable: true, receivedBefore: 4n, amount: 7n })).toEqual({
      outcome: 'overpaid',
      received: 11n,
    });
    expect(judgeDeposit({ expected: 10n, payable: false, receivedBefore: 4n, amount: 6n })).toEqual({
      outcome: 'paid_late',
      received: 6n,
    });
    expect(judgeDeposit({ expected: undefined, payable: true, receivedBefore: 0n, amount: 10n }).outcome).toBe(
      'wrong_token',
    );
  });

  it('holds a blocked sender’s transfer apart, whatever it would have paid, leaving the running total as it was', () => {
    const held = judgeDeposit({ senderBlocked: true, expected: 10n, payable: true, receivedBefore: 4n, amount: 6n });
    expect(held).toEqual({ outcome: 'held', received: 6n });
    const underpaid = judgeDeposit({ expected: 10n, payable: true, receivedBefore: 0n, amount: 4n });
    const before = exceptionsAfterDeposit([], deposit(underpaid, USDC, 4n, 10n));
    const after = exceptionsAfterDeposit(before, deposit(held, USDC, 6n, 10n));
    expect(after.slice(0, 1)).toEqual(before);
    expect(after[1]).toMatchObject({ type: 'held', asset: USDC, amount: '6' });
    expect(receivedSoFar(after, 'eip155:8453', USDC)).toBe(4n);
  });

  it('keeps one running underpaid entry per token, dropped when paid; other tokens then count as overpaid', () => {
    let exceptions: PaymentException[] = [];
    const first = judgeDeposit({ expected: 10n, payable: true, receivedBefore: 0n, amount: 3n });
    exceptions = exceptionsAfterDeposit(exceptions, deposit(first, USDC, 3n, 10n));
    const other = judgeDeposit({ expected: 10n, payable: true, receivedBefore: 0n, amount: 2n });
    exceptions = exceptionsAfterDeposit(exceptions, deposit(other, USDT, 2n, 10n));
    const second = judgeDeposit({ expected: 10n, payable: true, receivedBefore: 3n, amount: 4n });
    exceptions = exceptionsAfterDeposit(exceptions, deposit(second, USDC, 4n, 10n));
    expect(exceptions.map(({ type, asset, amount, expected }) => ({ type, asset, amount, expected }))).toEqual([
      { type: 'underpaid', asset: USDT, amount: '2', expected: '10' },
      { type: 'underpaid', asset: USDC, amount: '7', expected: '10' },
    ]);
    // The running entry keeps the id of the first transfer, and says how the buyer sent it.
    expect(exceptions[1]).toMatchObject({ id: 'exc_3', provider: 'Solana Pay' });

    const last = judgeDeposit({ expected: 10n, payable: true, receivedBefore: 7n, amount: 3n });
    exceptions = exceptionsAfterDeposit(exceptions, deposit(last, USDC, 3n, 10n));
    expect(exceptions.map(({ type, asset, amount, expected }) => ({ type, asset, amount, expected }))).toEqual([
      { type: 'overpaid', asset: USDT, amount: '2', expected: undefined },
    ]);
  });

  it('records the excess of an overpaying transfer, and late and wrong-token transfers whole', () => {
    const over = judgeDeposit({ expected: 10n, payable: true, receivedBefore: 4n, amount: 9n });
    expect(exceptionsAfterDeposit([], deposit(over, USDC, 9n, 10n))).toEqual([
      expect.objectContaining({ type: 'overpaid', amount: '3', asset: USDC }),
    ]);
    const late = judgeDeposit({ expected: 10n, payable: false, receivedBefore: 0n, amount: 10n });
    const wrong = judgeDeposit({ expected: undefined, payable: true, receivedBefore: 0n, amount: 5n });
    const after = exceptionsAfterDeposit(
      exceptionsAfterDeposit([], deposit(late, USDC, 10n, 10n)),
      deposit(wrong, USDT, 5n),
    );
    expect(after.map(({ type, amount }) => ({ type, amount }))).toEqual([
      { type: 'paid_late', amount: '10' },
      { type: 'wrong_token', amount: '5' },
    ]);
  });

  it('accounts for every base unit: once paid, received = asked + the exceptions of what was counted', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 1n, max: 10n ** 12n }),
        fc.array(fc.bigInt({ min: 1n, max: 10n ** 12n }), { minLength: 1, maxLength: 8 }),
        (expected, transfers) => {
          let exceptions: PaymentException[] = [];
          let received = 0n;
          let paid = false;
          let sent = 0n;
          for (const amount of transfers) {
            const judged = judgeDeposit({ expected, payable: !paid, receivedBefore: received, amount });
            exceptions = exceptionsAfterDeposit(exceptions, deposit(judged, USDC, amount, expected));
            sent += amount;
            if (judged.outcome === 'underpaid') received = judged.received;
            if (judged.outcome === 'paid' || judged.outcome === 'overpaid') paid = true;
          }
          const kept = exceptions.reduce((total, exception) => total + BigInt(exception.amount), 0n);
          expect(sent).toBe((paid ? expected : 0n) + kept);
          expect(exceptions.filter((exception) => exception.type === 'underpaid').length).toBe(paid ? 0 : 1);
        },
      ),
    );
  });
});
