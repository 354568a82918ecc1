import type { Migration } from 'kysely';
import * as foundation from './0001_foundation.ts';

/** Every schema change, in order; names are permanent once released. */
export const migrations: Record<string, Migration> = {
  '0001_foundation': foundation,
};
