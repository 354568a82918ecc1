import { describe, expect, it } from 'vitest';
import { eip681TransferUri } from '../../src/deposits/eip681.ts';

describe('EIP-681 transfer requests', () => {
  const recipient = '0x8bC7b3F64A5C7D2A3C1f0A5cE6b4F1e0E7bA9c11';
  it('asks for an ERC-20 transfer call on the token contract with the recipient and the amount in minor units', () => {
    expect(
      eip681TransferUri({
        chainId: 8453,
        recipient,
        amount: 10_500_000n,
        token: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
      }),
    ).toBe(
      'ethereum:0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913@8453/transfer?address=0x8bC7b3F64A5C7D2A3C1f0A5cE6b4F1e0E7bA9c11&uint256=10500000',
    );
  });
  it('asks for a plain value transfer in wei for the native coin', () => {
    expect(eip681TransferUri({ chainId: 1, recipient, amount: 3_333_333_333_333_333n })).toBe(
      'ethereum:0x8bC7b3F64A5C7D2A3C1f0A5cE6b4F1e0E7bA9c11@1?value=3333333333333333',
    );
  });
});
