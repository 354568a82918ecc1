import type { Config } from '../config.ts';
import type { Db } from '../db/database.ts';
import { AddressScreening } from './addressScreening.ts';
import { HttpScreening } from './httpScreening.ts';
import { ListScreening } from './listScreening.ts';

/** The process's address screening as SCREENING sets it: off, the operator's list, or an HTTP service. */
export function screeningFromConfig(
  settings: Config['screening'],
  db: Db,
  warn: (message: string) => void,
): AddressScreening {
  if (settings.provider === 'off') return new AddressScreening(db, undefined, 'closed', warn);
  const provider =
    settings.provider === 'list' ? new ListScreening(db) : new HttpScreening(settings.url, settings.timeoutMs);
  return new AddressScreening(db, provider, settings.onFailure, warn);
}
