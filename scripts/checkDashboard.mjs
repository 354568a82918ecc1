// Checks the Grafana dashboard's queries with promtool, which parses PromQL only inside rule files: each panel's
// queries become recording rules, Grafana's variables put in as values Prometheus would see, and
// `promtool check rules` parses them all. A dashboard that is not JSON, or a panel without a query, fails too.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const DASHBOARD = 'ops/grafana/paygate-dashboard.json';
const VARIABLES = { __rate_interval: '5m', network: '.*' };

const dashboard = JSON.parse(readFileSync(new URL(`../${DASHBOARD}`, import.meta.url), 'utf8'));
const panels = dashboard.panels.filter((panel) => panel.type !== 'row');
const rules = panels.flatMap((panel) => {
  if (!panel.targets?.length) throw new Error(`${DASHBOARD}: panel "${panel.title}" has no query`);
  return panel.targets.map((target, index) => ({
    record: `paygate_dashboard:panel_${panel.id}_${index}`,
    expr: target.expr.replace(/\$(\w+)/g, (whole, name) => VARIABLES[name] ?? whole),
  }));
});

const dir = mkdtempSync(join(tmpdir(), 'paygate-dashboard-'));
try {
  const file = join(dir, 'dashboard-queries.yml');
  // JSON is YAML: the rules file needs no YAML writer.
  writeFileSync(file, JSON.stringify({ groups: [{ name: 'dashboard', rules }] }));
  execFileSync('promtool', ['check', 'rules', file], { stdio: ['ignore', 'ignore', 'inherit'] });
  console.log(`${DASHBOARD}: ${rules.length} queries of ${panels.length} panels parse`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
