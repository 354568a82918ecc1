import { type DatabaseConnection, type Driver, PostgresDialect, type QueryExecutor } from 'kysely';

/** What transactions queued to run once they commit, by the connection they run on. */
const queued = new WeakMap<DatabaseConnection, (() => void)[]>();

function runQueued(connection: DatabaseConnection): void {
  const work = queued.get(connection);
  if (!work) return;
  queued.delete(connection);
  for (const run of work) {
    try {
      run();
    } catch {
      // What runs after a commit (a log line) cannot undo it; a failure of its own stays its own.
    }
  }
}

/**
 * PostgreSQL's dialect whose transactions run what `afterCommit` queued in them once they commit, and drop it when
 * they roll back.
 */
export class CommitAwarePostgresDialect extends PostgresDialect {
  override createDriver(): Driver {
    const driver = super.createDriver();
    const commit = driver.commitTransaction.bind(driver);
    const rollback = driver.rollbackTransaction.bind(driver);
    const release = driver.releaseConnection.bind(driver);
    driver.commitTransaction = async (connection) => {
      await commit(connection);
      runQueued(connection);
    };
    driver.rollbackTransaction = async (connection) => {
      queued.delete(connection);
      await rollback(connection);
    };
    driver.releaseConnection = async (connection) => {
      queued.delete(connection);
      await release(connection);
    };
    return driver;
  }
}

/**
 * Runs `work` once what `db` wrote is committed: at once when `db` is no transaction (each statement commits on its
 * own), else when the transaction commits, and never if it rolls back. For effects that must not announce what a
 * rollback takes back, such as log lines of domain events.
 */
export async function afterCommit(
  db: { readonly isTransaction: boolean; getExecutor(): QueryExecutor },
  work: () => void,
): Promise<void> {
  if (!db.isTransaction) {
    work();
    return;
  }
  await db.getExecutor().provideConnection(async (connection) => {
    const waiting = queued.get(connection);
    if (waiting) waiting.push(work);
    else queued.set(connection, [work]);
  });
}
