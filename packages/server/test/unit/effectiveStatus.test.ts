import { describe, expect, it } from 'vitest';
import type { PaymentException } from '../../src/payments/paymentExceptions.ts';
import { buyerFacingStatus, effectiveFailureCode, effectiveStatus } from '../../src/payments/stateMachine.ts';

const expiresAt = new Date('2026-11-25T12:00:00Z');
const before = new Date('2026-11-25T11:59:59Z');
const after = new Date('2026-11-25T12:00:00.500Z');
const underpaid: PaymentException = {
  id: 'exc_1',
  type: 'underpaid',
  network: 'eip155:8453',
  asset: 'eip155:8453/erc20:0x833589fcd6edb6e08f4c7c32d4f71b54bda02913',
  amount: '400000',
  expected: '1000000',
  txHash: '0xabc',
  from: 'eip155:8453:0x0000000000000000000000000000000000000001',
  at: '2026-11-25T11:50:00Z',
};
const unpaid = {
  status: 'requires_action' as const,
  expires_at: expiresAt,
  failure_code: null,
  expiry_awaits_follower: false,
};

describe('the status a read shows of an unpaid payment around its expiry', () => {
  it('is requires_action before the expiry, with or without a partial deposit', () => {
    expect(effectiveStatus({ ...unpaid, exceptions: [] }, before)).toBe('requires_action');
    expect(effectiveStatus({ ...unpaid, exceptions: [underpaid] }, before)).toBe('requires_action');
    expect(effectiveFailureCode({ ...unpaid, exceptions: [underpaid] }, before)).toBeUndefined();
  });

  it('is expired past the expiry when nothing arrived, before the sweep writes it', () => {
    expect(effectiveStatus({ ...unpaid, exceptions: [] }, after)).toBe('expired');
    expect(effectiveFailureCode({ ...unpaid, exceptions: [] }, after)).toBeUndefined();
  });

  it('is failed underpaid past the expiry when a deposit brought less than asked, as the sweep will make it', () => {
    expect(effectiveStatus({ ...unpaid, exceptions: [underpaid] }, after)).toBe('failed');
    expect(effectiveFailureCode({ ...unpaid, exceptions: [underpaid] }, after)).toBe('underpaid');
  });

  it('keeps a stored state and failure code as they are', () => {
    const failed = {
      status: 'failed' as const,
      expires_at: expiresAt,
      exceptions: [],
      failure_code: 'reverted',
      expiry_awaits_follower: false,
    };
    expect(effectiveStatus(failed, after)).toBe('failed');
    expect(effectiveFailureCode(failed, after)).toBe('reverted');
    const paidLate = {
      ...unpaid,
      status: 'succeeded' as const,
      exceptions: [{ ...underpaid, type: 'overpaid' as const }],
    };
    expect(effectiveStatus(paidLate, after)).toBe('succeeded');
  });

  it('stays unpaid past the expiry for the merchant while it has a deposit address, until the sweep decides; the buyer sees it closed', () => {
    const withAddress = { ...unpaid, expiry_awaits_follower: true };
    expect(effectiveStatus({ ...withAddress, exceptions: [] }, after)).toBe('requires_action');
    expect(effectiveStatus({ ...withAddress, exceptions: [underpaid] }, after)).toBe('requires_action');
    expect(effectiveFailureCode({ ...withAddress, exceptions: [underpaid] }, after)).toBeUndefined();
    expect(buyerFacingStatus({ ...withAddress, exceptions: [] }, after)).toBe('expired');
    expect(buyerFacingStatus({ ...withAddress, exceptions: [underpaid] }, after)).toBe('failed');
    expect(effectiveStatus({ ...withAddress, status: 'expired', exceptions: [] }, after)).toBe('expired');
  });
});
