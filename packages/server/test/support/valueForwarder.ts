import {
  type Account,
  type Address,
  type Chain,
  concatHex,
  createPublicClient,
  type Hex,
  http,
  pad,
  type Transport,
  type WalletClient,
} from 'viem';

/**
 * A contract that forwards the coin it is sent, as a contract wallet pays: it calls the address in the first 32
 * bytes of its calldata with all of its call value and the rest of the calldata, ignoring whether that call failed;
 * `reverting` reverts after the call instead, undoing it. Hand-assembled, as it is a few opcodes:
 * n = calldatasize - 32; calldatacopy(0, 32, n); call(gas, calldataload(0), callvalue, 0, n, 0, 0), then
 * pop and stop, or revert(0, 0).
 */
const FORWARD =
  '6020360360206000376000600060203603600034600035' + // n, calldatacopy, and call's arguments
  '5af1'; // gas, call
const KEEP = '5000'; // pop, stop
const UNDO = '60006000fd'; // revert(0, 0)

function initCode(runtime: string): Hex {
  const size = (runtime.length / 2).toString(16).padStart(2, '0');
  // codecopy(0, 12, size); return(0, size): the 12 bytes of this prefix, then the runtime code.
  return `0x60${size}600c60003960${size}6000f3${runtime}`;
}

export async function deployValueForwarder(
  wallet: WalletClient<Transport, Chain, Account>,
  rpcUrl: string,
  kind: 'keeping' | 'reverting',
): Promise<Address> {
  const client = createPublicClient({ transport: http(rpcUrl) });
  const hash = await wallet.sendTransaction({ data: initCode(FORWARD + (kind === 'keeping' ? KEEP : UNDO)) });
  const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 100 });
  if (!receipt.contractAddress || receipt.status !== 'success') throw new Error('value forwarder not deployed');
  return receipt.contractAddress;
}

/** The calldata that has a forwarder send its call value to `to`, passing `rest` on to it. */
export function forwardTo(to: Address, rest: Hex = '0x'): Hex {
  return concatHex([pad(to), rest]);
}
