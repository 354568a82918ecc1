import type { Address } from 'viem';

/**
 * The EIP-681 request for sending `amount` (minor units) to `recipient` on chain `chainId`: an ERC-20 `transfer`
 * call on the token's contract, or, for the native coin (no token), a plain value transfer in wei.
 */
export function eip681TransferUri(request: {
  chainId: number;
  recipient: Address;
  amount: bigint;
  token?: Address;
}): string {
  if (!request.token) return `ethereum:${request.recipient}@${request.chainId}?value=${request.amount}`;
  return `ethereum:${request.token}@${request.chainId}/transfer?address=${request.recipient}&uint256=${request.amount}`;
}
