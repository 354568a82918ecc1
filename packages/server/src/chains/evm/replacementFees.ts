export interface Eip1559Fees {
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
}

/** Rounds up, so a bump is never lost to integer division on tiny fees. */
function raisedByQuarter(amount: bigint): bigint {
  return (amount * 125n + 99n) / 100n;
}

/**
 * Fees for a transaction that replaces a stuck one with the same nonce: nodes accept a replacement only when both
 * fees rise by at least 10%, so both rise by 25%, and never below what the network asks for now.
 */
export function replacementFees(stuck: Eip1559Fees, current: Eip1559Fees): Eip1559Fees {
  const maxPriorityFeePerGas = [raisedByQuarter(stuck.maxPriorityFeePerGas), current.maxPriorityFeePerGas].reduce(
    (a, b) => (a > b ? a : b),
  );
  const maxFeePerGas = [raisedByQuarter(stuck.maxFeePerGas), current.maxFeePerGas, maxPriorityFeePerGas].reduce(
    (a, b) => (a > b ? a : b),
  );
  return { maxFeePerGas, maxPriorityFeePerGas };
}
