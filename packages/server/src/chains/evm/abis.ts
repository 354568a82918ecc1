import { parseAbi } from 'viem';

/** The canonical Permit2 deployment, at the same address on every chain. */
export const PERMIT2_ADDRESS = '0x000000000022D473030F116dDEE9F6B43aC78BA3' as const;

export const erc20Abi = parseAbi([
  'function name() view returns (string)',
  'function balanceOf(address owner) view returns (uint256)',
  'function allowance(address owner, address spender) view returns (uint256)',
  'function approve(address spender, uint256 amount) returns (bool)',
  'event Approval(address indexed owner, address indexed spender, uint256 value)',
]);

/** EIP-3009 as implemented by Circle's FiatToken (v2.2 takes the signature as bytes, so contract wallets can sign). */
export const eip3009Abi = parseAbi([
  'function version() view returns (string)',
  'function authorizationState(address authorizer, bytes32 nonce) view returns (bool)',
  'function receiveWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, bytes signature)',
  'function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, bytes signature)',
]);

/** EIP-5267: a contract's own account of its EIP-712 domain, where it gives one (Agora's AUSD). */
export const eip5267Abi = parseAbi([
  'function eip712Domain() view returns (bytes1 fields, string name, string version, uint256 chainId, address verifyingContract, bytes32 salt, uint256[] extensions)',
]);

/** EIP-2612's permit nonces and domain, and the `version()` many such tokens have beside EIP-5267's `eip712Domain()`. */
export const eip2612Abi = parseAbi([
  'function nonces(address owner) view returns (uint256)',
  'function DOMAIN_SEPARATOR() view returns (bytes32)',
  'function version() view returns (string)',
]);

export const permit2Abi = parseAbi([
  'struct TokenPermissions { address token; uint256 amount; }',
  'struct PermitTransferFrom { TokenPermissions permitted; uint256 nonce; uint256 deadline; }',
  'struct SignatureTransferDetails { address to; uint256 requestedAmount; }',
  'function nonceBitmap(address owner, uint256 wordPosition) view returns (uint256)',
  'function permitTransferFrom(PermitTransferFrom permit, SignatureTransferDetails transferDetails, address owner, bytes signature)',
]);
