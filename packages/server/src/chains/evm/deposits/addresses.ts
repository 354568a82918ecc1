import {
  type Address,
  concatHex,
  encodeAbiParameters,
  getContractAddress,
  type Hex,
  keccak256,
  stringToHex,
  zeroHash,
} from 'viem';
import { depositFactoryBytecode, depositForwarderBytecode } from './contracts.ts';

/**
 * The deterministic deployment proxy (github.com/Arachnid/deterministic-deployment-proxy): the same address on
 * nearly every EVM chain, and in anvil from genesis. Deploying the factory through it puts one collector's factory
 * at the same address on every network.
 */
export const DETERMINISTIC_DEPLOYER: Address = '0x4e59b44847b379578588920cA78FbF26c0B4956C';

/** keccak256 of the forwarder's creation code, which takes no constructor arguments: the same for every payment. */
export const FORWARDER_INIT_CODE_HASH: Hex = keccak256(depositForwarderBytecode);

/** The factory's creation code with its collector, as the deployment proxy receives it after the salt. */
export function factoryInitCode(collector: Address): Hex {
  return concatHex([depositFactoryBytecode, encodeAbiParameters([{ type: 'address' }], [collector])]);
}

/** Where the collector's deposit factory is (or will be) on every network: CREATE2 through the deployment proxy. */
export function depositFactoryAddress(collector: Address): Address {
  return getContractAddress({
    opcode: 'CREATE2',
    from: DETERMINISTIC_DEPLOYER,
    salt: zeroHash,
    bytecode: factoryInitCode(collector),
  });
}

/** The CREATE2 salt of a payment's forwarder: keccak256 of its id, so no two payments share one. */
export function depositSalt(paymentId: string): Hex {
  return keccak256(stringToHex(paymentId));
}

/**
 * The CREATE2 salt of a merchant's own forwarder, the address its x402 payments pay: keccak256 of `merchant:` and its
 * id, which no payment id (`pay_...`) hashes to, so no payment's address is a merchant's.
 */
export function merchantDepositSalt(merchantId: string): Hex {
  return keccak256(stringToHex(`merchant:${merchantId}`));
}

/** The address of the forwarder of `salt` from the collector's factory, derived without any transaction. */
function forwarderAddress(collector: Address, salt: Hex): Address {
  return getContractAddress({
    opcode: 'CREATE2',
    from: depositFactoryAddress(collector),
    salt,
    bytecodeHash: FORWARDER_INIT_CODE_HASH,
  });
}

/** A payment's deposit address, derived without any transaction; the same on every EVM network. */
export function depositAddress(collector: Address, paymentId: string): Address {
  return forwarderAddress(collector, depositSalt(paymentId));
}

/**
 * A merchant's own deposit address (its x402 `payTo`), the same on every EVM network: only the collector's factory
 * can move what reaches it, and only to the collector.
 */
export function merchantDepositAddress(collector: Address, merchantId: string): Address {
  return forwarderAddress(collector, merchantDepositSalt(merchantId));
}
