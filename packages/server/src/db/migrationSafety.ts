/**
 * Rolling upgrades run a release beside the one before it on one database, so a migration must not break the code
 * of the release before it (expand/contract). What breaks it, found in a migration's SQL: a rename, a dropped table
 * or column, a changed column type, a column made NOT NULL, and a NOT NULL column added without a default (the old
 * code's inserts leave it out). A contract step (a drop of what no running release reads any more) is declared in
 * the migration with `contract: <what> unused since <version>` and comes a release after the code stopped using it.
 */
const BREAKING: { pattern: RegExp; what: string; contract?: true }[] = [
  { pattern: /\bRENAME\s+COLUMN\b/i, what: 'renames a column' },
  { pattern: /\bALTER\s+TABLE\s+[\w."]+\s+RENAME\s+TO\b/i, what: 'renames a table' },
  { pattern: /\bDROP\s+COLUMN\b/i, what: 'drops a column', contract: true },
  { pattern: /\bDROP\s+TABLE\b/i, what: 'drops a table', contract: true },
  { pattern: /\bALTER\s+COLUMN\s+[\w"]+\s+(?:SET\s+DATA\s+)?TYPE\b/i, what: "changes a column's type" },
  { pattern: /\bALTER\s+COLUMN\s+[\w"]+\s+SET\s+NOT\s+NULL\b/i, what: 'makes a column NOT NULL' },
  {
    pattern: /\bADD\s+COLUMN\s+(?:IF\s+NOT\s+EXISTS\s+)?[\w"]+\s+[^,;]*?\bNOT\s+NULL\b(?![^,;]*\bDEFAULT\b)/i,
    what: 'adds a NOT NULL column without a default',
  },
];

const CONTRACT = /contract:\s*(.+?)\s+unused since\s+(\d+\.\d+\.\d+)/gi;

export interface MigrationSource {
  name: string;
  /** The migration module's text. */
  text: string;
}

/** SQL comments and the module's doc comments are not statements: what they say is left out. */
function statementsOf(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/--[^\n]*/g, '');
}

const versionParts = (version: string) => version.split('.').map(Number);

/** Whether `a` is `b` or an earlier version. */
function atOrBefore(a: string, b: string): boolean {
  const [x, y] = [versionParts(a), versionParts(b)];
  for (let index = 0; index < 3; index++) {
    if (x[index]! !== y[index]!) return x[index]! < y[index]!;
  }
  return true;
}

/**
 * What in each migration after `release.lastMigration` (the last migration of the latest release, `release.version`)
 * would break that release's code: nothing for an expand-only migration. A drop is a contract step when the migration
 * declares what it drops unused since a version no later than the latest release, so no running release reads it.
 */
export function unsafeMigrations(
  migrations: readonly MigrationSource[],
  release: { version: string; lastMigration: string },
): { name: string; problems: string[] }[] {
  const index = migrations.findIndex((migration) => migration.name === release.lastMigration);
  if (index < 0) throw new Error(`the last released migration ${release.lastMigration} is not among the migrations`);
  return migrations
    .slice(index + 1)
    .map((migration) => {
      const statements = statementsOf(migration.text);
      const contracts = [...migration.text.matchAll(CONTRACT)];
      const contracted = contracts.length > 0 && contracts.every((match) => atOrBefore(match[2]!, release.version));
      const problems = BREAKING.filter(
        ({ pattern, contract }) => pattern.test(statements) && !(contract && contracted),
      ).map(({ what }) => what);
      return { name: migration.name, problems };
    })
    .filter((migration) => migration.problems.length > 0);
}
