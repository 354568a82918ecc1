import { describe, expect, it } from 'vitest';
import { FULL_CHAOS, printChaosReport, runChaos } from '../../../bench/chaos.ts';

/**
 * The short form of `npm run bench -- chaos`: the same faults (processes killed, PostgreSQL stopped for 10 s, chain
 * nodes that drop, delay, fail and serve stale heads) over fewer payments, on its own PostgreSQL and devnet.
 */
describe('chaos, short form', () => {
  it('loses nothing, charges nothing twice, delivers every webhook, settles once and balances the audit while everything fails', async () => {
    const lines: string[] = [];
    const report = await runChaos({
      ...FULL_CHAOS,
      payments: 21,
      processes: 2,
      buyersAtOnce: 11,
      killEveryMs: [4_000, 8_000],
      receiverFailureRate: 0.05,
      refundShare: 0.2,
      drainLimitMs: 300_000,
      log: (line) => lines.push(line),
    });
    printChaosReport(report, (line) => lines.push(line));
    const shown = lines.join('\n');
    expect(report.problems, shown).toEqual([]);
    expect(report.byStatus.succeeded, shown).toBeGreaterThan(0);
    expect(report.kills, shown).toBeGreaterThan(0);
    expect(report.databaseOutages, shown).toBe(1);
    expect(report.outageAnswers['503 service_unavailable with Retry-After'], shown).toBeGreaterThan(0);
    for (const fault of ['errored', 'dropped', 'delayed'] as const)
      expect(report.rpcFaults[fault], shown).toBeGreaterThan(0);
    expect(report.webhooks.received, shown).toBeGreaterThanOrEqual(report.webhooks.deliveries);
    expect(report.settlements.confirmed, shown).toBeGreaterThan(0);
    expect(report.audit.exitCode, shown).toBe(0);
  }, 900_000);
});
