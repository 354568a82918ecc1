import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadScreeningList } from '../../src/screening/listScreening.ts';
import { parseScreeningList } from '../../src/screening/screeningListFile.ts';
import { startX402Testbed, type X402Testbed } from '../x402/support.ts';

/**
 * x402 payers screened (SCREENING=list): a payload a blocked account signed is refused at verify and at settle with
 * the reason `account_blocked`, and nothing is recorded or sent for it.
 */
describe('address screening of x402 payers', () => {
  let testbed: X402Testbed;
  const db = () => testbed.service.server.db;

  beforeAll(async () => {
    testbed = await startX402Testbed({ env: { SCREENING: 'list' } });
    await loadScreeningList(db(), parseScreeningList(testbed.buyerAddress('bob')), 'test');
  }, 180_000);
  afterAll(() => testbed?.close());

  it('refuses a listed payer at verify and at settle; another payer verifies', async () => {
    const requirements = testbed.requirements('25000');
    const blocked = await testbed.payload('bob', requirements);
    for (const operation of ['verify', 'settle'] as const) {
      const refused = await testbed.facilitator(operation, blocked, requirements);
      expect(refused.status, refused.text).toBe(200);
      expect(refused.body).toMatchObject(
        operation === 'verify'
          ? { isValid: false, invalidReason: 'account_blocked' }
          : { success: false, errorReason: 'account_blocked' },
      );
    }
    const nonce = (blocked.payload.authorization as { nonce: string }).nonce;
    expect(await db().selectFrom('x402_payments').select('payment_id').where('nonce', '=', nonce).execute()).toEqual(
      [],
    );
    const decisions = await db()
      .selectFrom('screening_decisions')
      .select(['account', 'step', 'blocked'])
      .where('step', '=', 'x402')
      .execute();
    expect(decisions).toContainEqual({
      account: `${requirements.network}:${testbed.buyerAddress('bob')}`,
      step: 'x402',
      blocked: true,
    });

    const allowed = await testbed.facilitator('verify', await testbed.payload('alice', requirements), requirements);
    expect(allowed.body).toEqual({ isValid: true, payer: testbed.buyerAddress('alice') });
  });
});
