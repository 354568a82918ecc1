import { describe, expect, it } from 'vitest';
import { FULL_FAILOVER, printChaosReport, runChaos } from '../../../bench/chaos.ts';

/**
 * The short form of `npm run bench -- failover`: two `paygate start` processes on a primary PostgreSQL with a
 * synchronous standby, given both hosts in DATABASE_URL; the primary is killed with SIGKILL mid-flow and the standby
 * promoted 3 s later, while payments, settlements, refunds and webhooks go on.
 */
describe('database failover, short form', () => {
  it('loses nothing, charges nothing twice, answers no 500 and takes payments again soon after the standby is promoted', async () => {
    const lines: string[] = [];
    const report = await runChaos({
      ...FULL_FAILOVER,
      payments: 21,
      buyersAtOnce: 11,
      databaseOutageMs: 3_000,
      drainLimitMs: 300_000,
      log: (line) => lines.push(line),
    });
    printChaosReport(report, (line) => lines.push(line));
    const shown = lines.join('\n');
    expect(report.problems, shown).toEqual([]);
    expect(report.databaseOutages, shown).toBe(1);
    expect(report.outageAnswers['503 service_unavailable with Retry-After'], shown).toBeGreaterThan(0);
    expect(report.lost, shown).toEqual([]);
    expect(report.chargedWrongly, shown).toEqual([]);
    expect(report.notFinal, shown).toEqual([]);
    expect(report.serverErrors, shown).toEqual([]);
    expect(report.settlements.confirmed, shown).toBeGreaterThan(0);
    expect(report.audit.exitCode, shown).toBe(0);
    expect(report.failover?.firstWriteAfterPromotionMs, shown).toBeLessThan(30_000);
    expect(report.failover?.firstSucceededAfterPromotionMs, shown).toBeLessThan(30_000);
  }, 900_000);
});
