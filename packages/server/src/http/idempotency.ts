import { createHash } from 'node:crypto';
import { type RawBuilder, sql, type Transaction } from 'kysely';
import stringify from 'safe-stable-stringify';
import type { Db } from '../db/database.ts';
import type { Database } from '../db/schema.ts';
import { ApiError } from './errors.ts';

export interface StoredResponse {
  status: number;
  body: string;
  /** True when this is the stored response of an earlier request with the same key. */
  replayed?: boolean;
}

export interface IdempotentRequest {
  partnerId: string;
  /** What the key is scoped to, e.g. `POST /v1/merchants`. */
  scope: string;
  key: string | undefined;
  /** Everything that makes two requests "the same" (path parameters and body). */
  fingerprint: unknown;
}

const MAX_KEY_LENGTH = 255;

export function requireIdempotencyKey(key: string | string[] | undefined): string {
  const value = Array.isArray(key) ? key[0] : key;
  if (!value) {
    throw new ApiError('missing_idempotency_key');
  }
  if (value.length > MAX_KEY_LENGTH) {
    throw ApiError.validation([
      { field: 'header idempotency-key', message: `must be at most ${MAX_KEY_LENGTH} characters` },
    ]);
  }
  return value;
}

/** What a key's row keeps of its request, to tell a replay from another request with the same key. */
export function requestHashOf(fingerprint: unknown): string {
  return createHash('sha256')
    .update(stringify(fingerprint) ?? '')
    .digest('hex');
}

function isLockTimeout(error: unknown): boolean {
  return (error as { code?: string }).code === '55P03';
}

/** How long a request waits for an earlier one with the same key before it is refused. */
const DEFAULT_KEY_WAIT_MS = 15_000;

/**
 * The claim of a key already holding its answer, as the CTE `claim` of a statement that does the work in the same
 * round trip, written when `when` holds. A key claimed before (or still being claimed) fails the whole statement
 * with a unique violation or a lock timeout: then `runIdempotently` tells a replay from a conflict.
 */
export function claimWithAnswer(
  request: IdempotentRequest & { key: string },
  answer: StoredResponse,
  when: RawBuilder<boolean>,
): RawBuilder<unknown> {
  return sql`claim AS (
    INSERT INTO idempotency_keys (partner_id, scope, key, request_hash, response_status, response_body)
    SELECT ${request.partnerId}, ${request.scope}, ${request.key}, ${requestHashOf(request.fingerprint)},
      ${answer.status}, ${answer.body}
    FROM (SELECT set_config('lock_timeout', ${`${DEFAULT_KEY_WAIT_MS}ms`}, true)) AS bounded_wait
    WHERE ${when}
    RETURNING key
  )`;
}

/**
 * Runs `work` at most once per (partner, scope, key) (D5), across requests and processes. The key row is inserted
 * in the same transaction as the work: a concurrent request with the same key waits on that row, then replays
 * the stored response; if the work fails, the row disappears with the rollback and the key can be used again.
 * A request that waits longer than `waitMs` for the first one gets 409 `idempotency_conflict`. `anticipated`, the
 * response the work gives when it does what it usually does, is stored with the claim, so that a work that gives it
 * costs no second write; any other response replaces it before the commit.
 */
export async function runIdempotently(
  db: Db,
  request: IdempotentRequest & { key: string },
  work: (trx: Transaction<Database>) => Promise<StoredResponse>,
  options: { waitMs?: number; anticipated?: StoredResponse } = {},
): Promise<StoredResponse> {
  const { waitMs = DEFAULT_KEY_WAIT_MS, anticipated } = options;
  const requestHash = requestHashOf(request.fingerprint);
  try {
    return await db.transaction().execute(async (trx) => {
      // The wait is bounded in the claim itself: its row sets this transaction's lock timeout before it is inserted.
      const { rows: claimed } = await sql<{ key: string }>`
        INSERT INTO idempotency_keys (partner_id, scope, key, request_hash, response_status, response_body)
        SELECT ${request.partnerId}, ${request.scope}, ${request.key}, ${requestHash},
          ${anticipated?.status ?? null}::integer, ${anticipated?.body ?? null}::text
        FROM (SELECT set_config('lock_timeout', ${`${waitMs}ms`}, true)) AS bounded_wait
        ON CONFLICT DO NOTHING RETURNING key`.execute(trx);
      if (claimed.length === 0) {
        const stored = await trx
          .selectFrom('idempotency_keys')
          .select(['request_hash', 'response_status', 'response_body'])
          .where('partner_id', '=', request.partnerId)
          .where('scope', '=', request.scope)
          .where('key', '=', request.key)
          .executeTakeFirstOrThrow();
        if (stored.request_hash !== requestHash) {
          throw new ApiError(
            'idempotency_conflict',
            'This Idempotency-Key was already used with a different request; use a fresh key.',
          );
        }
        return { status: stored.response_status ?? 500, body: stored.response_body ?? '', replayed: true };
      }
      const response = await work(trx);
      if (response.status === anticipated?.status && response.body === anticipated.body) return response;
      await trx
        .updateTable('idempotency_keys')
        .set({ response_status: response.status, response_body: response.body })
        .where('partner_id', '=', request.partnerId)
        .where('scope', '=', request.scope)
        .where('key', '=', request.key)
        .execute();
      return response;
    });
  } catch (error) {
    if (isLockTimeout(error)) {
      throw new ApiError('idempotency_conflict', 'A request with this Idempotency-Key is still being processed.');
    }
    throw error;
  }
}
