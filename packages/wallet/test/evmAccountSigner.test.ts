import { recoverTypedDataAddress } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import { evmSignerFromAccount } from '../src/evmAccountSigner.ts';
import { InvalidActionError, UnsupportedActionError } from '../src/walletErrors.ts';

const account = privateKeyToAccount(generatePrivateKey());
// Signing needs no node: no RPC URL is configured.
const signer = evmSignerFromAccount(account, { rpcUrls: {} });

function typedData(chainId: unknown) {
  return {
    types: {
      EIP712Domain: [
        { name: 'name', type: 'string' },
        { name: 'chainId', type: 'uint256' },
      ],
      Note: [{ name: 'text', type: 'string' }],
    },
    primaryType: 'Note',
    domain: { name: 'Test', chainId },
    message: { text: 'pay' },
  };
}

async function failure(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected a failure');
    },
    (error: unknown) => error,
  );
}

describe('evmSignerFromAccount typed data', () => {
  it.each([31337, '31337', '0x7a69'])('signs a domain whose chainId %j is the action chain', async (chainId) => {
    const data = typedData(chainId);
    const signature = await signer.request({
      chainId: 'eip155:31337',
      method: 'eth_signTypedData_v4',
      params: [account.address, JSON.stringify(data)],
    });
    expect(await recoverTypedDataAddress({ ...typedData(31337), signature: signature as `0x${string}` } as never)).toBe(
      account.address,
    );
  });

  it('refuses a domain of another chain, another signer address, and unknown methods', async () => {
    const params = [account.address, JSON.stringify(typedData(1))];
    expect(
      await failure(signer.request({ chainId: 'eip155:31337', method: 'eth_signTypedData_v4', params })),
    ).toBeInstanceOf(InvalidActionError);
    const otherAddress = privateKeyToAccount(generatePrivateKey()).address;
    const forOther = [otherAddress, JSON.stringify(typedData(31337))];
    expect(
      await failure(signer.request({ chainId: 'eip155:31337', method: 'eth_signTypedData_v4', params: forOther })),
    ).toBeInstanceOf(InvalidActionError);
    expect(await failure(signer.request({ chainId: 'eip155:31337', method: 'eth_sign', params: [] }))).toBeInstanceOf(
      UnsupportedActionError,
    );
  });
});
