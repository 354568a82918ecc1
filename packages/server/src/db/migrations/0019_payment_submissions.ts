import { type Kysely, sql } from 'kysely';

/**
 * A confirmation's submission is due while `submitted_at` is null: the confirming request submits it at once, and a
 * sweep in every process submits any left due (its process died, the node failed) once `next_submission_at` has
 * come. Taking a submission moves `next_submission_at` ahead (a lease), so one process at a time submits it.
 * Confirmations accepted earlier are done unless their payment is still processing; those are submitted again
 * (a submission finds what was sent before and sends nothing twice).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE payment_confirmations
      ADD COLUMN submitted_at timestamptz,
      ADD COLUMN submission_attempts integer NOT NULL DEFAULT 0,
      ADD COLUMN next_submission_at timestamptz NOT NULL DEFAULT now();
    UPDATE payment_confirmations AS confirmation SET submitted_at = confirmation.created_at
      FROM payments WHERE payments.id = confirmation.payment_id AND payments.status <> 'processing';
    CREATE INDEX payment_confirmations_due_idx ON payment_confirmations (next_submission_at) WHERE submitted_at IS NULL;
  `.execute(db);
  // Submission jobs of the job queue are replaced by the sweeps; those still queued are due rows now.
  await sql`
    DO $$ BEGIN
      IF to_regclass('graphile_worker.jobs') IS NOT NULL THEN
        PERFORM graphile_worker.remove_job(key) FROM graphile_worker.jobs WHERE task_identifier = 'gateway_submit_payment' AND key IS NOT NULL;
      END IF;
    END $$
  `.execute(db);
}
