/**
 * The latest release (`CHANGELOG.md`), its commit and its last migration: every migration after it runs while that
 * release's processes may still be serving, so it must only expand the schema (`db/migrationSafety.ts`, checked in
 * the tests), and the rolling upgrade test runs that commit's tree beside the current code on one database.
 */
export const LATEST_RELEASE = {
  version: '0.1.0',
  commit: '2cebad280cb0da95562f95f751cbe2e7df94c6e0',
  lastMigration: '0056_solana_x402_account_inflows',
};
