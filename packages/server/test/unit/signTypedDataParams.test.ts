import { verifyTypedData } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import { receiveWithAuthorizationTypedData } from '../../src/chains/evm/eip3009.ts';
import { permitTransferFromTypedData } from '../../src/chains/evm/permit2.ts';
import { signTypedDataParams } from '../../src/gateway/methods/signTypedDataParams.ts';

const buyer = privateKeyToAccount('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d');
const collector = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const token = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';

describe('eth_signTypedData_v4 params', () => {
  it('spells out the domain type from the fields the domain has and writes integers as decimal strings', () => {
    const permit = permitTransferFromTypedData({
      chainId: 8453,
      token,
      amount: 10_000_000n,
      spender: collector,
      paymentId: 'pay_01TYPED',
      deadline: 1_800_000_000n,
    });
    const [signer, json] = JSON.parse(signTypedDataParams(buyer.address, permit)) as [string, string];
    const payload = JSON.parse(json);
    expect(signer).toBe(buyer.address);
    expect(payload.types.EIP712Domain).toEqual([
      { name: 'name', type: 'string' },
      { name: 'chainId', type: 'uint256' },
      { name: 'verifyingContract', type: 'address' },
    ]);
    expect(payload.primaryType).toBe('PermitTransferFrom');
    expect(payload.message.permitted).toEqual({ token, amount: '10000000' });
    expect(payload.message.nonce).toBe(permit.message.nonce.toString());
    expect(payload.message.deadline).toBe('1800000000');
  });

  it('is what a wallet signs: the signature of the parsed payload verifies against the typed data', async () => {
    const authorization = receiveWithAuthorizationTypedData({
      token: { name: 'USD Coin', version: '2', chainId: 8453, address: token },
      from: buyer.address,
      to: collector,
      value: 1_000_000n,
      validAfter: 0n,
      validBefore: 1_800_000_000n,
    });
    const [, json] = JSON.parse(signTypedDataParams(buyer.address, authorization)) as [string, string];
    const { types, primaryType, domain, message } = JSON.parse(json);
    expect(types.EIP712Domain.map((field: { name: string }) => field.name)).toEqual([
      'name',
      'version',
      'chainId',
      'verifyingContract',
    ]);
    const { EIP712Domain: _domainType, ...messageTypes } = types;
    const signature = await buyer.signTypedData({ domain, types: messageTypes, primaryType, message });
    expect(await verifyTypedData({ ...authorization, address: buyer.address, signature })).toBe(true);
  });
});
