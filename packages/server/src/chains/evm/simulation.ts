import { BaseError, ContractFunctionRevertedError, ExecutionRevertedError } from 'viem';

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

/** Whether a call failed because the contract reverted (rather than because the node could not be asked). */
export function isExecutionRevert(error: unknown): boolean {
  return (
    error instanceof BaseError &&
    error.walk((cause) => cause instanceof ContractFunctionRevertedError || cause instanceof ExecutionRevertedError) !==
      null
  );
}
