import { describe, expect, it } from 'vitest';
import { API_ERRORS, ApiError, errorCodesOf } from '../../src/http/errors.ts';

describe('the error catalogue', () => {
  it('gives each code the status of the interface, and its default message', () => {
    const statuses = Object.fromEntries(Object.entries(API_ERRORS).map(([code, spec]) => [code, spec.status]));
    expect(statuses).toMatchObject({
      invalid_params: 400,
      params_validation: 400,
      invalid_api_version: 400,
      unknown_api_version: 400,
      api_version_downgrade: 400,
      missing_api_key: 401,
      invalid_api_key: 401,
      missing_merchant_id: 401,
      internal_error: 500,
      bad_gateway: 502,
    });
    const error = new ApiError('missing_api_key');
    expect([error.status, error.code, error.message]).toEqual([
      401,
      'missing_api_key',
      API_ERRORS.missing_api_key.message,
    ]);
    expect(new ApiError('forbidden', 'Not this scope.').message).toBe('Not this scope.');
  });

  it('answers a code with another status only where the catalogue pairs them', () => {
    expect(new ApiError('invalid_params', 'Too large.', undefined, { status: 413 }).status).toBe(413);
    expect(() => new ApiError('not_found', 'Gone?', undefined, { status: 410 })).toThrow(/not_found.*410/);
    expect(errorCodesOf(413)).toEqual(['invalid_params']);
    expect(errorCodesOf(404).sort()).toEqual(['merchant_not_found', 'not_found', 'payment_not_found']);
  });
});
