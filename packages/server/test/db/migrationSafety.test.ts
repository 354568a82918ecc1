import fs from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { type MigrationSource, unsafeMigrations } from '../../src/db/migrationSafety.ts';
import { migrations } from '../../src/db/migrations/index.ts';
import { LATEST_RELEASE } from '../../src/db/migrations/released.ts';

const migration = (name: string, sql: string): MigrationSource => ({
  name,
  text: `export async function up(db) {\n  await sql\`${sql}\`.execute(db);\n}`,
});
const released = migration('0001_base', 'CREATE TABLE payments (id text PRIMARY KEY);');
const problemsOf = (sql: string, text?: string) =>
  unsafeMigrations([released, text ? { name: '0002_next', text } : migration('0002_next', sql)], {
    version: '0.3.0',
    lastMigration: '0001_base',
  }).flatMap((found) => found.problems);

describe('migrations that would break the release before them', () => {
  it('finds renames, drops, type changes and columns made NOT NULL', () => {
    expect(problemsOf('ALTER TABLE payments RENAME COLUMN status TO state;')).toEqual(['renames a column']);
    expect(problemsOf('ALTER TABLE payments RENAME TO charges;')).toEqual(['renames a table']);
    expect(problemsOf('ALTER TABLE payments DROP COLUMN note;')).toEqual(['drops a column']);
    expect(problemsOf('DROP TABLE old_things;')).toEqual(['drops a table']);
    expect(problemsOf('ALTER TABLE payments ALTER COLUMN amount TYPE numeric;')).toEqual(["changes a column's type"]);
    expect(problemsOf('ALTER TABLE payments ALTER COLUMN note SET NOT NULL;')).toEqual(['makes a column NOT NULL']);
    expect(problemsOf('ALTER TABLE payments ADD COLUMN note text NOT NULL;')).toEqual([
      'adds a NOT NULL column without a default',
    ]);
  });

  it('lets expand steps through: new tables, nullable columns, NOT NULL with a default, indexes, looser checks', () => {
    expect(
      problemsOf(`CREATE TABLE links (id text PRIMARY KEY, name text NOT NULL);
        ALTER TABLE payments ADD COLUMN link_id text REFERENCES links (id);
        ALTER TABLE payments ADD COLUMN source text NOT NULL DEFAULT 'api';
        CREATE INDEX payments_link_idx ON payments (link_id);
        ALTER TABLE payments DROP CONSTRAINT payments_source_check;`),
    ).toEqual([]);
  });

  it('takes a drop declared a contract step of what a released version stopped using, and no other', () => {
    const drop = (since: string) =>
      `/** contract: payments.note unused since ${since} */\nexport async function up(db) { await sql\`ALTER TABLE payments DROP COLUMN note;\`.execute(db); }`;
    expect(problemsOf('', drop('0.2.0'))).toEqual([]);
    expect(problemsOf('', drop('0.3.0'))).toEqual([]);
    expect(problemsOf('', drop('0.4.0'))).toEqual(['drops a column']);
    // A rename is never a contract step: it breaks the release before it whatever is declared.
    expect(
      problemsOf(
        '',
        `/** contract: payments.note unused since 0.1.0 */ await sql\`ALTER TABLE payments RENAME COLUMN a TO b;\``,
      ),
    ).toEqual(['renames a column']);
  });

  it('reads statements, not what comments say about them', () => {
    expect(problemsOf('-- once we DROP COLUMN note, this goes\nCREATE INDEX a ON payments (id);')).toEqual([]);
  });

  it('finds none after the latest release, and would have found the rename of 0039 in a rolling upgrade', async () => {
    const sources = await Promise.all(
      Object.keys(migrations).map(async (name) => ({
        name,
        text: await fs.readFile(new URL(`../../src/db/migrations/${name}.ts`, import.meta.url), 'utf8'),
      })),
    );
    expect(unsafeMigrations(sources, LATEST_RELEASE)).toEqual([]);
    expect(
      unsafeMigrations(sources.slice(0, 40), { version: '0.0.1', lastMigration: '0038_payment_deposit_address' }),
    ).toEqual([{ name: '0039_solana_pay_read_through', problems: ['renames a column'] }]);
  });
});
