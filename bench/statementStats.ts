import pg from 'pg';

/**
 * What the service asked of PostgreSQL during a run, from `pg_stat_statements` (the benchmark's embedded server
 * loads it): statements per payment and the ones that took the server's time. Planning is not counted; each
 * statement's execution time is.
 */
export interface StatementFigures {
  calls: number;
  totalMs: number;
  top: { query: string; calls: number; totalMs: number }[];
}

/** `postgres` command-line settings that load the statistics; pass them when the server starts. */
export const STATEMENT_STATS_SETTINGS = {
  shared_preload_libraries: 'pg_stat_statements',
  'pg_stat_statements.max': '2000',
};

export class StatementStats {
  readonly #client: pg.Client;

  private constructor(client: pg.Client) {
    this.#client = client;
  }

  static async open(url: string): Promise<StatementStats> {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
    return new StatementStats(client);
  }

  async reset(): Promise<void> {
    await this.#client.query('SELECT pg_stat_statements_reset()');
  }

  /** Statements of this database since the last reset, but this reader's own. */
  async read(topCount: number): Promise<StatementFigures> {
    const { rows } = await this.#client.query<{ query: string; calls: string; total_ms: number }>(
      `SELECT query, calls::text, total_exec_time AS total_ms
         FROM pg_stat_statements
        WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
          AND query NOT LIKE '%pg_stat_statements%'
        ORDER BY total_exec_time DESC`,
    );
    const statements = rows.map((row) => ({
      query: row.query.replace(/\s+/g, ' ').trim(),
      calls: Number(row.calls),
      totalMs: row.total_ms,
    }));
    return {
      calls: statements.reduce((sum, statement) => sum + statement.calls, 0),
      totalMs: statements.reduce((sum, statement) => sum + statement.totalMs, 0),
      top: statements.slice(0, topCount),
    };
  }

  close(): Promise<void> {
    return this.#client.end();
  }
}
