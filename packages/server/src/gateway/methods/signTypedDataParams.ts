import { type Address, getTypesForEIP712Domain, type TypedDataDomain } from 'viem';

/**
 * The `eth_signTypedData_v4` params wallets expect: the signer, then the typed data as JSON with its domain's type
 * spelled out (from the fields the domain has) and every integer as a decimal string.
 */
export function signTypedDataParams(
  signer: Address,
  typedData: { domain: TypedDataDomain; types: Record<string, unknown>; primaryType: string; message: object },
): string {
  const { domain, types, primaryType, message } = typedData;
  const payload = {
    types: { EIP712Domain: getTypesForEIP712Domain({ domain }), ...types },
    primaryType,
    domain,
    message,
  };
  const json = JSON.stringify(payload, (_key, value: unknown) =>
    typeof value === 'bigint' ? value.toString() : value,
  );
  return JSON.stringify([signer, json]);
}
