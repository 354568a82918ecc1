import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Config } from '../config.ts';
import { UserFacingError } from '../userFacingError.ts';

/** A refused operator command; the command line prints its message alone. */
export class CliError extends UserFacingError {}

/**
 * An operator command without `DATABASE_URL` joins the embedded database of `DATA_DIR`; where there is none, it says
 * where it looked instead of creating an empty one the running service would never see. Checked before the command
 * loads the database layer, so that the refusal is immediate.
 */
export function requireEmbeddedDatabase(config: Config): void {
  if (config.databaseUrl) return;
  const cluster = path.resolve(config.dataDir, 'postgres');
  if (!existsSync(path.join(cluster, 'PG_VERSION'))) {
    throw new CliError(
      `no database in ${cluster}: set DATA_DIR to the folder the service uses (it starts with \`paygate start\`), ` +
        'or DATABASE_URL to its PostgreSQL; `paygate migrate` creates a new one there',
    );
  }
}
