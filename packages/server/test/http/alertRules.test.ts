import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scrape } from '../support/prometheusText.ts';
import { startTestServer, type TestServer } from '../support/testServer.ts';

const ops = new URL('../../../../ops/', import.meta.url);
const read = (path: string) => readFileSync(new URL(path, ops), 'utf8');

/** The metric names a PromQL text or rules file reads, a histogram's series named by the histogram. */
function metricNames(text: string): string[] {
  const names = text.match(/\b(paygate_[a-z_]+|http_request_duration_seconds\w*|process_[a-z_]+)\b/g) ?? [];
  return [...new Set(names.map((name) => name.replace(/^(http_request_duration_seconds)_(bucket|count|sum)$/, '$1')))];
}

describe('the alert rules and the dashboard read metrics the service exports', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server?.close());

  const sources = {
    'prometheus/paygate-alerts.yml': () => metricNames(read('prometheus/paygate-alerts.yml')),
    'prometheus/paygate-alerts.test.yml': () => metricNames(read('prometheus/paygate-alerts.test.yml')),
    'grafana/paygate-dashboard.json': () => {
      const dashboard = JSON.parse(read('grafana/paygate-dashboard.json'));
      const queries = dashboard.panels.flatMap((panel: any) => (panel.targets ?? []).map((target: any) => target.expr));
      return metricNames(queries.join('\n'));
    },
  };

  for (const [file, names] of Object.entries(sources))
    it(`${file}: every metric it names is in /metrics, with its help`, async () => {
      const { text } = await scrape(server);
      const used = names();
      expect(used.length).toBeGreaterThan(5);
      const missing = used.filter((name) => !new RegExp(`^# HELP ${name} \\S`, 'm').test(text));
      expect(missing).toEqual([]);
    });

  it('every alert is tested by promtool, firing and not firing', () => {
    const alerts = [...read('prometheus/paygate-alerts.yml').matchAll(/^\s+- alert: (\w+)$/gm)].map(
      (match) => match[1],
    );
    const tests = read('prometheus/paygate-alerts.test.yml');
    expect(alerts.length).toBeGreaterThanOrEqual(11);
    for (const alert of alerts) {
      const cases = [...tests.matchAll(new RegExp(`alertname: ${alert}\\n\\s+exp_alerts:(.*)`, 'g'))].map((match) =>
        match[1]?.trim(),
      );
      expect(cases, alert).toContain('[]');
      expect(
        cases.some((rest) => rest === ''),
        `${alert} fires in some case`,
      ).toBe(true);
    }
  });
});
