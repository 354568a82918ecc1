import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { connect, type Db } from '../../src/db/database.ts';
import { PREPARED } from '../../src/db/preparedStatements.ts';

describe('statements marked PREPARED', () => {
  let db: Db;

  beforeAll(() => {
    // One connection, so the statements below and the look at its prepared statements share it.
    db = connect(inject('databaseUrl'), 1);
  });
  afterAll(() => db.destroy());

  const preparedOfConnection = async () =>
    (await sql<{ statement: string }>`SELECT statement FROM pg_prepared_statements`.execute(db)).rows.map(
      (row) => row.statement,
    );

  it('are prepared once per connection and answer each call with its own values', async () => {
    const doubled = (value: number) =>
      sql<{ doubled: number }>`${sql.raw(PREPARED)} SELECT ${value}::int * 2 AS doubled`;
    const answers = [];
    for (const value of [1, 2, 3]) answers.push((await doubled(value).execute(db)).rows[0]?.doubled);
    expect(answers).toEqual([2, 4, 6]);
    const prepared = (await preparedOfConnection()).filter((statement) => statement.includes('AS doubled'));
    expect(prepared).toHaveLength(1);
  });

  it('leave every other statement unprepared', async () => {
    await sql`SELECT ${5}::int AS unmarked`.execute(db);
    expect((await preparedOfConnection()).some((statement) => statement.includes('AS unmarked'))).toBe(false);
  });
});
