import { describe, expect, it } from 'vitest';
import { type CallFrame, nativeCredits } from '../../src/chains/evm/deposits/nativeCredits.ts';

const DEPOSIT = '0x00000000000000000000000000000000000000d1';
const OTHER = '0x00000000000000000000000000000000000000e2';
const WALLET = '0x00000000000000000000000000000000000000a3';
const BUYER = '0x00000000000000000000000000000000000000b4';
const watched = (address: string) => address === DEPOSIT;

const call = (from: string, to: string, value: bigint, extra: Partial<CallFrame> = {}): CallFrame => ({
  type: 'CALL',
  from,
  to,
  value: `0x${value.toString(16)}`,
  ...extra,
});

describe('native coin kept at watched addresses, from a call trace', () => {
  it("counts a transaction's own value as -1 and the value of the calls it makes as -2, -3, in trace order", () => {
    expect(nativeCredits(call(BUYER, DEPOSIT, 5n), watched)).toEqual([
      { to: DEPOSIT, from: BUYER, amount: 5n, logIndex: -1 },
    ]);
    const wallet = call(BUYER, WALLET, 0n, {
      calls: [call(WALLET, OTHER, 1n), call(WALLET, DEPOSIT.toUpperCase().replace('0X', '0x'), 7n)],
    });
    expect(nativeCredits(wallet, watched)).toEqual([{ to: DEPOSIT, from: WALLET, amount: 7n, logIndex: -3 }]);
  });

  it('leaves out what a failed frame, or a failed frame above it, moved; a sibling that succeeded still counts', () => {
    const trace = call(BUYER, WALLET, 0n, {
      calls: [
        call(WALLET, OTHER, 0n, { error: 'execution reverted', calls: [call(OTHER, DEPOSIT, 9n)] }),
        call(WALLET, DEPOSIT, 4n, { error: 'out of gas' }),
        call(WALLET, DEPOSIT, 2n),
      ],
    });
    expect(nativeCredits(trace, watched)).toEqual([{ to: DEPOSIT, from: WALLET, amount: 2n, logIndex: -2 }]);
    expect(nativeCredits(call(BUYER, DEPOSIT, 5n, { error: 'execution reverted' }), watched)).toEqual([]);
  });

  it('numbers only the frames that moved coin, so a node listing more frames (precompiles, static calls) keys alike', () => {
    const lean = call(BUYER, WALLET, 0n, { calls: [call(WALLET, OTHER, 1n), call(WALLET, DEPOSIT, 6n)] });
    const listed = call(BUYER, WALLET, 0n, {
      calls: [
        { type: 'STATICCALL', from: WALLET, to: '0x0000000000000000000000000000000000000001' },
        call(WALLET, OTHER, 1n, { calls: [{ type: 'STATICCALL', from: OTHER, to: WALLET }] }),
        call(WALLET, OTHER, 0n),
        call(WALLET, DEPOSIT, 6n),
      ],
    });
    expect(nativeCredits(listed, watched)).toEqual(nativeCredits(lean, watched));
    expect(nativeCredits(lean, watched)).toEqual([{ to: DEPOSIT, from: WALLET, amount: 6n, logIndex: -3 }]);
  });

  it("counts a self-destruct's balance to a watched beneficiary, and no frame that moves no coin", () => {
    const trace = call(BUYER, WALLET, 0n, {
      calls: [
        { type: 'SELFDESTRUCT', from: WALLET, to: DEPOSIT, value: '0x3' },
        { type: 'DELEGATECALL', from: WALLET, to: DEPOSIT, value: '0x8' },
        { type: 'STATICCALL', from: WALLET, to: DEPOSIT },
        call(WALLET, DEPOSIT, 0n),
      ],
    });
    expect(nativeCredits(trace, watched)).toEqual([{ to: DEPOSIT, from: WALLET, amount: 3n, logIndex: -2 }]);
  });
});
