import { type Hex, hexToBigInt } from 'viem';

/** One frame of a transaction's call trace as geth's `callTracer` gives it: the call, and the calls it made. */
export interface CallFrame {
  type: string;
  from: string;
  to?: string;
  value?: Hex;
  error?: string;
  calls?: CallFrame[];
}

/**
 * The key a transaction's own value takes among a deposit's (chain, transaction, log index): no log has a negative
 * index, so it never meets a token transfer of the same transaction. The coin moved by the calls a transaction
 * makes takes -2, -3 and so on: the order, in the trace, of the frames that moved coin and kept it. Frames that move
 * nothing (static and delegate calls, calls without value, the precompile calls some nodes list) take no number, so
 * every node numbers a transaction's transfers alike.
 */
export const TRANSACTION_VALUE_INDEX = -1;

/** Frames that move the coin to `to`: a call with value, and a self-destruct's balance to its beneficiary. */
const MOVES_VALUE = new Set(['CALL', 'SELFDESTRUCT']);

export interface NativeCredit {
  to: string;
  from: string;
  amount: bigint;
  logIndex: number;
}

/**
 * The coin a transaction's trace moved to watched addresses and kept there: a frame that failed undoes its own
 * transfer and every one its calls made, so only frames with no failed frame above them count (a failed top frame
 * is a failed transaction). Addresses are lower case.
 */
export function nativeCredits(top: CallFrame, isWatched: (address: string) => boolean): NativeCredit[] {
  const credits: NativeCredit[] = [];
  let moves = 0;
  const visit = (frame: CallFrame, isTop: boolean) => {
    if (frame.error !== undefined) return;
    const to = frame.to?.toLowerCase();
    const amount = frame.value ? hexToBigInt(frame.value) : 0n;
    if (to && amount > 0n && MOVES_VALUE.has(frame.type.toUpperCase())) {
      const logIndex = isTop ? TRANSACTION_VALUE_INDEX : TRANSACTION_VALUE_INDEX - ++moves;
      if (isWatched(to)) credits.push({ to, from: frame.from.toLowerCase(), amount, logIndex });
    }
    for (const call of frame.calls ?? []) visit(call, false);
  };
  visit(top, true);
  return credits;
}
