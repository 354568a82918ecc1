import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isValidMerchantEmail } from '../../src/http/email.ts';

describe('isValidMerchantEmail', () => {
  it.each([
    'owner@shop.com',
    'first.last+tag@mail.shop.co.uk',
    "o'brien@pub.ie",
    'a@b.io',
    'x_y-z@sub-domain.example.museum',
  ])('accepts %s', (email) => expect(isValidMerchantEmail(email)).toBe(true));

  it.each([
    '.owner@shop.com',
    'ow..ner@shop.com',
    'owner.@shop.com',
    'owner@shop',
    'owner@shop.c',
    'owner@shop.c0m',
    'owner@shop.123',
    'owner@-shop.com',
    'owner@shop..com',
    '@shop.com',
    'owner@',
    'owner shop@shop.com',
    'owner@sh op.com',
    `${'a'.repeat(65)}@shop.com`,
    '',
  ])('refuses %j', (email) => expect(isValidMerchantEmail(email)).toBe(false));

  it('never accepts a local part with a leading dot or consecutive dots', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 20 }), fc.boolean(), (local, leading) => {
        const broken = leading ? `.${local}` : `${local}..x`;
        expect(isValidMerchantEmail(`${broken}@shop.com`)).toBe(false);
      }),
    );
  });
});
