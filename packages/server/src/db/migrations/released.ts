/**
 * The latest release (`CHANGELOG.md`) and its last migration: every migration after it runs while that release's
 * processes may still be serving, so it must only expand the schema (`db/migrationSafety.ts`, checked in the tests).
 */
export const LATEST_RELEASE = { version: '0.1.0', lastMigration: '0056_solana_x402_account_inflows' };
