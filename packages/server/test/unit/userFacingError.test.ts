import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config.ts';
import { DatabaseUnavailableError } from '../../src/db/database.ts';
import { FeeScheduleError } from '../../src/settlement/fees.ts';
import { UserFacingError } from '../../src/userFacingError.ts';

describe('errors shown to the user as they are', () => {
  it('share one base and are named after their own class', () => {
    for (const error of [new ConfigError('a'), new DatabaseUnavailableError('b'), new FeeScheduleError('c')]) {
      expect(error).toBeInstanceOf(UserFacingError);
      expect(error.name).toBe(error.constructor.name);
    }
    expect(new ConfigError('PORT must be a whole number').name).toBe('ConfigError');
    expect(new Error('internal')).not.toBeInstanceOf(UserFacingError);
  });
});
