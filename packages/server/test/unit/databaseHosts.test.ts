import { describe, expect, it } from 'vitest';
import { DatabaseUrlError, describeDatabaseUrl, parseDatabaseUrl } from '../../src/db/databaseHosts.ts';

describe('several database hosts in one URL', () => {
  it('leaves a URL of one host without target_session_attrs to node-postgres', () => {
    expect(parseDatabaseUrl('postgresql://u:p@db:5432/paygate?sslmode=require')).toBeUndefined();
    expect(parseDatabaseUrl('postgres://u@localhost:5433/paygate?host=%2Ftmp')).toBeUndefined();
  });

  it('reads each host and port in order, read-write unless asked otherwise, and names one host per connection', () => {
    const target = parseDatabaseUrl('postgresql://u:p%40ss@db-a:5432,db-b,[::1]:6000/paygate?sslmode=require');
    expect(target?.hosts).toEqual([
      { host: 'db-a', port: 5432 },
      { host: 'db-b', port: 5432 },
      { host: '[::1]', port: 6000 },
    ]);
    expect(target?.sessionAttrs).toBe('read-write');
    expect(target?.urlOf({ host: 'db-b', port: 5432 })).toBe('postgresql://u:p%40ss@db-b:5432/paygate?sslmode=require');
  });

  it('takes target_session_attrs out of the URL it hands on, also for one host', () => {
    const target = parseDatabaseUrl('postgres://u:p@db:5432/paygate?target_session_attrs=primary');
    expect(target?.sessionAttrs).toBe('primary');
    expect(target?.urlOf({ host: 'db', port: 5432 })).toBe('postgres://u:p@db:5432/paygate');
  });

  it('refuses what it cannot honour', () => {
    expect(() => parseDatabaseUrl('postgresql://u@a,b/paygate?target_session_attrs=standby')).toThrow(DatabaseUrlError);
    expect(() => parseDatabaseUrl('postgresql://u@a,,b/paygate')).toThrow(DatabaseUrlError);
    expect(() => parseDatabaseUrl('postgresql://u@a:99999,b/paygate')).toThrow(DatabaseUrlError);
    expect(() => parseDatabaseUrl('postgresql://u@a,b/paygate?host=%2Ftmp')).toThrow(DatabaseUrlError);
  });

  it('describes a URL without its credentials', () => {
    expect(describeDatabaseUrl('postgresql://u:secret@a:5432,b/paygate?x=1')).toBe('a:5432,b:5432/paygate');
  });
});
