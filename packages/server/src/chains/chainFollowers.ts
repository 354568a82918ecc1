import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import type pg from 'pg';
import { Gauge, type Registry } from 'prom-client';
import type { Db } from '../db/database.ts';
import { sessionClient } from '../db/databaseHosts.ts';
import { type Logger, silentLogger } from '../log.ts';

/** First key of every follower's advisory lock, apart from other advisory locks ("pgfw"). */
const LOCK_SPACE = 0x70676677;

/** The text hashed into the second key of a network's follower lock: a part other than the transactions has its own. */
function lockNameOf(chain: string, part: FollowerPart = 'transactions'): string {
  return part === 'transactions' ? `follow:${chain}` : `follow:${chain}:${part}`;
}

/**
 * Which of `chains` some process follows now, in any process: those whose transactions' follower lock is held in
 * this database.
 * The lock is the truth the followers themselves go by, where `paygate_chain_follower_leading` tells only of the
 * process that answers the scrape.
 */
export async function followedChains(db: Db, chains: string[]): Promise<Set<string>> {
  if (!chains.length) return new Set();
  // A two-key advisory lock shows its keys as classid and objid (as oids: a negative hash reads as its unsigned twin).
  const { rows } = await sql<{ chain: string }>`
    SELECT chain FROM unnest(${chains}::text[], ${chains.map((chain) => lockNameOf(chain))}::text[]) AS wanted (chain, lock_name)
    WHERE EXISTS (
      SELECT 1 FROM pg_locks
      WHERE locktype = 'advisory' AND granted AND objsubid = 2
        AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
        AND classid = ${LOCK_SPACE}::int::oid AND objid = hashtext(lock_name)::oid
    )`.execute(db);
  return new Set(rows.map((row) => row.chain));
}

/**
 * What of a network a follower reads: its transactions (every transaction the service sent or watches), or the
 * deposits to its deposit addresses, read apart so a slow pass over many transactions never holds a buyer's deposit
 * back, and followed by whichever process takes that part.
 */
export type FollowerPart = 'transactions' | 'deposits';

export interface ChainFollower {
  /** CAIP-2 id of the network it follows; one process at a time follows each part of it. */
  readonly chain: string;
  /** `transactions` unless said. */
  readonly part?: FollowerPart;
  /** One pass over the network; says when the next one is worth making. */
  step(): Promise<{ nextStepInMs: number }>;
  /** Whether something new to follow came since the last pass (and forgets it): the next pass is then made at once. */
  takeNewWork?(): boolean;
}

export interface ChainFollowersOptions {
  /** How often a process that does not follow a network tries to take it over. */
  takeoverIntervalMs?: number;
  log?: Logger;
}

/**
 * Runs each network's follower in at most one process at a time. Every process tries to take each network's
 * session advisory lock on a connection of its own; PostgreSQL drops the lock the moment its holder's connection
 * or process dies, so another process takes the network over within `takeoverIntervalMs`. Correctness never rests
 * on the lock (every write a follower makes is conditional on the state it read); it keeps the RPC calls at one
 * reader per network.
 */
export class ChainFollowers {
  private client: pg.Client | null = null;
  private connecting: Promise<pg.Client> | null = null;
  private locking: Promise<unknown> = Promise.resolve();
  /** Lock names of the parts this process follows. */
  private readonly leading = new Set<string>();
  private stopped = false;
  private readonly loops: Promise<void>[];
  private readonly parts: { chain: string; part: FollowerPart }[];
  private readonly takeoverIntervalMs: number;
  private readonly log: Logger;

  constructor(
    private readonly connectionString: string,
    followers: ChainFollower[],
    options: ChainFollowersOptions = {},
  ) {
    this.takeoverIntervalMs = options.takeoverIntervalMs ?? 2_000;
    this.log = options.log ?? silentLogger;
    this.parts = followers.map((follower) => ({ chain: follower.chain, part: follower.part ?? 'transactions' }));
    this.loops = followers.map((follower) => this.run(follower));
  }

  /**
   * `paygate_chain_follower_leading{chain,part}`: 1 for each part of a network this process follows, 0 for those
   * another process follows. Across all processes each should show 1 exactly once; none means what it reads waits.
   */
  registerMetrics(registry: Registry): void {
    const followers = this;
    new Gauge({
      name: 'paygate_chain_follower_leading',
      help: 'Whether this process follows the network (1) or another process does (0)',
      labelNames: ['chain', 'part'],
      registers: [registry],
      collect() {
        for (const { chain, part } of followers.parts)
          this.labels(chain, part).set(followers.leading.has(lockNameOf(chain, part)) ? 1 : 0);
      },
    });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all(this.loops);
    const client = this.client;
    this.client = null;
    this.leading.clear();
    await client?.end().catch(() => {});
  }

  private async run(follower: ChainFollower): Promise<void> {
    const lockName = lockNameOf(follower.chain, follower.part);
    while (!this.stopped) {
      const startedAt = Date.now();
      let waitMs = this.takeoverIntervalMs;
      try {
        if (!this.leading.has(lockName) && (await this.tryLead(lockName))) this.leading.add(lockName);
        if (this.leading.has(lockName)) ({ nextStepInMs: waitMs } = await follower.step());
      } catch (error) {
        this.log.warn(
          `following ${follower.part ?? 'transactions'} of ${follower.chain} failed: ${(error as Error).message}`,
        );
      }
      const until = startedAt + waitMs;
      while (!this.stopped && Date.now() < until && !(this.leading.has(lockName) && follower.takeNewWork?.()))
        await sleep(Math.min(100, until - Date.now()));
    }
  }

  private async tryLead(lockName: string): Promise<boolean> {
    // One query at a time on the shared connection.
    const attempt = this.locking.then(async () => {
      const client = await this.connection();
      const { rows } = await client.query<{ taken: boolean }>(
        'SELECT pg_try_advisory_lock($1, hashtext($2)) AS taken',
        [LOCK_SPACE, lockName],
      );
      return rows[0]?.taken === true;
    });
    this.locking = attempt.catch(() => false);
    return attempt;
  }

  /** The lock connection; when it breaks, every lock on it is gone, so this process follows nothing until it takes them again. */
  private connection(): Promise<pg.Client> {
    if (this.client) return Promise.resolve(this.client);
    this.connecting ??= (async () => {
      const client = sessionClient(this.connectionString, { application_name: 'paygate chain followers' });
      const lost = (why: string) => {
        if (this.client !== client) return;
        this.client = null;
        this.leading.clear();
        if (!this.stopped)
          this.log.warn(`chain follower lock connection lost (${why}); following nothing until it is back`);
      };
      client.on('error', (error) => lost(error.message));
      client.on('end', () => lost('closed'));
      try {
        await client.connect();
      } finally {
        this.connecting = null;
      }
      this.client = client;
      return client;
    })();
    return this.connecting;
  }
}
