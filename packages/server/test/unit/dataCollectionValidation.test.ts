import { describe, expect, it } from 'vitest';
import { buyerDataSchema } from '../../src/gateway/dataCollection/buyerDataSchema.ts';
import {
  buyerDataFromFields,
  buyerDataFromForm,
  validateBuyerData,
} from '../../src/gateway/dataCollection/validateBuyerData.ts';

const now = new Date('2026-11-22T10:00:00Z');
const valid = {
  fullName: 'Ada Lovelace',
  dateOfBirth: '1990-12-10',
  placeOfResidence: 'London, United Kingdom',
  termsAccepted: true,
};

function problemsOf(data: Record<string, unknown>) {
  const result = validateBuyerData(data, now);
  return result.ok ? {} : Object.fromEntries(result.problems);
}

describe('buyer data schema and validation', () => {
  it('is a JSON Schema of full name, date of birth, place of birth or residence, and terms', () => {
    const schema = buyerDataSchema(now);
    expect(Object.keys(schema.properties)).toEqual([
      'fullName',
      'dateOfBirth',
      'placeOfBirth',
      'placeOfResidence',
      'termsAccepted',
    ]);
    expect(schema.required).toEqual(['fullName', 'dateOfBirth', 'termsAccepted']);
    expect(schema.properties.dateOfBirth.formatMaximum).toBe('2026-11-22');
  });

  it('accepts complete data with either place', () => {
    expect(validateBuyerData(valid, now)).toEqual({ ok: true, data: valid });
    const withBirthPlace = { ...valid, placeOfResidence: undefined, placeOfBirth: 'Paris' };
    delete withBirthPlace.placeOfResidence;
    expect(validateBuyerData(withBirthPlace, now).ok).toBe(true);
  });

  it('names each problem by field in words a buyer can act on', () => {
    expect(problemsOf({})).toEqual({
      fullName: 'Enter your full name',
      dateOfBirth: 'Enter your date of birth',
      termsAccepted: 'Accept the terms to continue',
      placeOfBirth: 'Enter your place of birth or your place of residence',
    });
    expect(problemsOf({ ...valid, dateOfBirth: '1990-02-30' })).toEqual({
      dateOfBirth: 'Enter a real date as YYYY-MM-DD',
    });
    expect(problemsOf({ ...valid, dateOfBirth: '2026-11-23' })).toEqual({
      dateOfBirth: 'A date of birth must be in the past',
    });
    expect(problemsOf({ ...valid, dateOfBirth: '1850-01-01' })).toEqual({
      dateOfBirth: 'Enter a real date as YYYY-MM-DD',
    });
    expect(problemsOf({ ...valid, termsAccepted: false })).toEqual({ termsAccepted: 'Accept the terms to continue' });
    expect(problemsOf({ ...valid, fullName: 'x'.repeat(201) })).toEqual({ fullName: 'Use at most 200 characters' });
    expect(problemsOf({ ...valid, fullName: 42 })).toEqual({ fullName: 'must be a string' });
    expect(problemsOf({ ...valid, nationality: 'FR' })).toEqual({ nationality: 'is not a field of this form' });
  });

  it("reads a wallet's fields: trimmed, empty answers absent, repeated and prototype ids refused", () => {
    const { data, problems } = buyerDataFromFields([
      { id: 'fullName', value: '  Ada Lovelace ' },
      { id: 'placeOfBirth', value: '   ' },
      { id: '__proto__', value: { polluted: true } },
      { id: 'dateOfBirth', value: '1990-12-10' },
      { id: 'dateOfBirth', value: '1990-12-11' },
    ]);
    expect(problems.get('dateOfBirth')).toBe('is given more than once');
    expect(Object.entries(data)).toEqual([
      ['fullName', 'Ada Lovelace'],
      ['__proto__', { polluted: true }],
      ['dateOfBirth', '1990-12-11'],
    ]);
    const result = validateBuyerData(data, now);
    expect(result.ok ? undefined : result.problems.get('__proto__')).toBe('is not a field of this form');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('reads the form: a ticked box is on, unknown inputs ignored', () => {
    expect(
      buyerDataFromForm({
        fullName: ' Ada ',
        dateOfBirth: '1990-12-10',
        placeOfBirth: '',
        termsAccepted: 'on',
        extra: 'x',
      }),
    ).toEqual({
      fullName: 'Ada',
      dateOfBirth: '1990-12-10',
      termsAccepted: true,
    });
    expect(buyerDataFromForm({})).toEqual({});
  });
});
