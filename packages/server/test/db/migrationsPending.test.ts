import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { migrationsPending } from '../../src/db/database.ts';
import { migrations } from '../../src/db/migrations/index.ts';
import { isolatedTestDatabase } from '../support/isolatedDatabase.ts';

describe('migrationsPending: whether an operator command must load and run the migrations', () => {
  it('names every migration the service runs by its file', () => {
    const folder = fileURLToPath(new URL('../../src/db/migrations/', import.meta.url));
    const files = readdirSync(folder)
      .filter((file) => /^\d{4}_\w+\.ts$/.test(file))
      .map((file) => file.slice(0, -'.ts'.length));
    expect(files.sort()).toEqual(Object.keys(migrations).sort());
  });

  it('is false on a migrated database, and true once one migration is missing or none ran', async () => {
    const { db } = await isolatedTestDatabase();
    expect(await migrationsPending(db)).toBe(false);
    await sql`DELETE FROM kysely_migration WHERE name = (SELECT max(name) FROM kysely_migration)`.execute(db);
    expect(await migrationsPending(db)).toBe(true);
    await sql`DROP TABLE kysely_migration`.execute(db);
    expect(await migrationsPending(db)).toBe(true);
  });
});
