import { BaseError, ContractFunctionRevertedError } from 'viem';
import { PaymentRefusedError } from './errors.ts';

/** The contract's own words for a failed call when it gave any, else the node's first line. */
export function revertReason(error: unknown): string {
  if (error instanceof BaseError) {
    const reverted = error.walk((cause) => cause instanceof ContractFunctionRevertedError);
    if (reverted instanceof ContractFunctionRevertedError) {
      return reverted.reason ?? reverted.data?.errorName ?? reverted.shortMessage;
    }
    return error.shortMessage;
  }
  return error instanceof Error ? error.message : String(error);
}

/** Runs a simulation; a revert becomes a refusal that says what the contract objected to. */
export async function simulateOrRefuse(what: string, simulate: () => Promise<unknown>): Promise<void> {
  try {
    await simulate();
  } catch (error) {
    throw new PaymentRefusedError('simulation_failed', `${what} would fail on chain: ${revertReason(error)}`);
  }
}
