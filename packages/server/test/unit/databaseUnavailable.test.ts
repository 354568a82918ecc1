import { describe, expect, it } from 'vitest';
import { isDatabaseUnavailable } from '../../src/db/databaseUnavailable.ts';

const socketError = (code: string, syscall: string) =>
  Object.assign(new Error(`${syscall} ${code}`), { code, syscall });
const postgresError = (code: string) => Object.assign(new Error('from the server'), { code });

describe('telling an unreachable database from a failed statement', () => {
  it('takes a server that is down, shutting down, starting or full, and a connection lost on the way', () => {
    for (const error of [
      socketError('ECONNREFUSED', 'connect'),
      socketError('ENOENT', 'connect'),
      socketError('ECONNRESET', 'read'),
      socketError('EPIPE', 'write'),
      postgresError('57P01'),
      postgresError('57P03'),
      postgresError('08006'),
      postgresError('53300'),
      new Error('Connection terminated unexpectedly'),
      new Error('timeout exceeded when trying to connect'),
      new Error('Client has encountered a connection error and is not queryable'),
    ])
      expect(isDatabaseUnavailable(error), String(error)).toBe(true);
  });

  it('leaves statement errors, other file errors and non-errors as they are', () => {
    for (const error of [
      postgresError('23505'),
      postgresError('40001'),
      postgresError('57014'),
      postgresError('0800'),
      socketError('ENOENT', 'open'),
      new Error('relation "payments" does not exist'),
      'Connection terminated',
      null,
      undefined,
    ])
      expect(isDatabaseUnavailable(error), String(error)).toBe(false);
  });
});
