import { randomUUID } from 'node:crypto';
import { Migrator, sql } from 'kysely';
import { describe, expect, inject, it } from 'vitest';
import { connect, migrateToLatest } from '../../src/db/database.ts';
import { migrations } from '../../src/db/migrations/index.ts';

function databaseUrl(name: string): string {
  const url = new URL(inject('databaseUrl'));
  url.pathname = `/${name}`;
  return url.href;
}

async function onMaintenanceDatabase(statement: ReturnType<typeof sql>): Promise<void> {
  const admin = connect(databaseUrl('postgres'), 1);
  try {
    await statement.execute(admin);
  } finally {
    await admin.destroy();
  }
}

describe('buyer data migration', () => {
  it('applies to a database that already ran the later-numbered migrations', async () => {
    const name = `paygate_d14_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
    await onMaintenanceDatabase(sql`CREATE DATABASE ${sql.id(name)}`);
    const db = connect(databaseUrl(name), 2);
    try {
      // A database migrated by a release that had 0010 and later but not yet 0009.
      const { '0009_buyer_data_collection': _buyerData, ...earlier } = migrations;
      const { error } = await new Migrator({ db, provider: { getMigrations: async () => earlier } }).migrateToLatest();
      expect(error).toBeUndefined();

      expect(await migrateToLatest(db, databaseUrl(name))).toEqual(['0009_buyer_data_collection']);
      const columns = await sql<{ column_name: string }>`
        SELECT column_name FROM information_schema.columns WHERE table_name = 'buyer_data' ORDER BY ordinal_position
      `.execute(db);
      expect(columns.rows.map((row) => row.column_name)).toEqual([
        'payment_id',
        'scope',
        'source',
        'key_id',
        'nonce',
        'ciphertext',
        'auth_tag',
        'created_at',
        'updated_at',
      ]);
      expect(await migrateToLatest(db, databaseUrl(name))).toEqual([]);
    } finally {
      await db.destroy();
      await onMaintenanceDatabase(sql`DROP DATABASE IF EXISTS ${sql.id(name)} WITH (FORCE)`);
    }
  });
});
