import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import { createServer, get } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import lighthouse from 'lighthouse';
import type { Browser } from 'playwright-core';
import { launchChromium } from '../packages/server/test/checkout/support/browser.ts';
import { ROOT, startDevnetBench } from './support.ts';

/** A current phone, as the page is judged on. */
const PHONE = { width: 390, height: 844 };
/** The page's own script, messages and stylesheet, brotli-compressed as served, at most. */
const FIRST_LOAD_BUDGET_BYTES = 60 * 1024;
/** The default way to pay, from the top of the page, within this many screen heights. */
const PATH_BUDGET_SCREENS = 2;
/** Lighthouse runs per page; the median of each score is the figure, as Lighthouse's own docs advise. */
const LIGHTHOUSE_RUNS = 5;
const CATEGORIES = ['performance', 'accessibility', 'best-practices'] as const;
const TARGETS: Record<(typeof CATEGORIES)[number], number> = {
  performance: 95,
  accessibility: 100,
  'best-practices': 95,
};
/** The performance metrics a run shows beside its scores. */
const METRICS = [
  ['first-contentful-paint', 'FCP'],
  ['largest-contentful-paint', 'LCP'],
  ['total-blocking-time', 'TBT'],
  ['cumulative-layout-shift', 'CLS'],
  ['speed-index', 'SI'],
] as const;

/** The bytes a GET is answered with, as sent (compressed or not: fetch would decompress). */
function bytesServed(url: string, acceptEncoding: string): Promise<number> {
  return new Promise((resolve, reject) => {
    get(url, { headers: { 'accept-encoding': acceptEncoding } }, (response) => {
      let length = 0;
      response.on('data', (chunk: Buffer) => {
        length += chunk.length;
      });
      response.on('end', () =>
        response.statusCode === 200 ? resolve(length) : reject(new Error(`${url} answered ${response.statusCode}`)),
      );
      response.on('error', reject);
    }).on('error', reject);
  });
}

function row(cells: (string | number)[], widths: number[]): string {
  return `${cells.map((cell, index) => (index === 0 ? String(cell).padEnd(widths[0]!) : String(cell).padStart(widths[index]!))).join(' ')}\n`;
}

/** (a) The page's own script, catalogue and stylesheet, raw and brotli as the service sends them. */
async function measureFirstLoad(checkoutUrl: string): Promise<void> {
  const page = await (await fetch(checkoutUrl)).text();
  const assets = [
    ...[...page.matchAll(/<script src="([^"]+)" defer><\/script>/g)].map((match) => match[1]!),
    ...[...page.matchAll(/<link rel="stylesheet" href="([^"]+)">/g)].map((match) => match[1]!),
  ];
  const widths = [34, 10, 10];
  process.stdout.write("== (a) first load: the page's own script, messages and stylesheet, as served\n");
  process.stdout.write(row(['asset', 'raw B', 'brotli B'], widths));
  let raw = 0;
  let brotli = 0;
  for (const asset of assets) {
    const url = new URL(asset, checkoutUrl).toString();
    const [plain, compressed] = await Promise.all([bytesServed(url, 'identity'), bytesServed(url, 'br')]);
    raw += plain;
    brotli += compressed;
    process.stdout.write(row([path.basename(asset), plain, compressed], widths));
  }
  process.stdout.write(row(['JS + CSS', raw, brotli], widths));
  const [pageRaw, pageBrotli] = await Promise.all([
    bytesServed(checkoutUrl, 'identity'),
    bytesServed(checkoutUrl, 'br'),
  ]);
  process.stdout.write(row(['the HTML page itself', pageRaw, pageBrotli], widths));
  const verdict = brotli <= FIRST_LOAD_BUDGET_BYTES ? 'met' : 'NOT met';
  process.stdout.write(
    `JS + CSS brotli: ${(brotli / 1024).toFixed(1)} KB (target <= ${FIRST_LOAD_BUDGET_BYTES / 1024} KB: ${verdict})\n\n`,
  );
}

/**
 * (b) How far a new buyer on a phone scrolls for the default way to pay: from the top of the page to the bottom of
 * the preselected token's panel, scanning (as it opens) and sending to the address; no browser wallet in the page.
 */
async function measurePath(browser: Browser, checkoutUrl: string): Promise<void> {
  const context = await browser.newContext({
    viewport: PHONE,
    deviceScaleFactor: 3,
    isMobile: true,
    hasTouch: true,
    locale: 'en-US',
  });
  const page = await context.newPage();
  await page.goto(checkoutUrl);
  // The script has run once it said no wallet of this browser pays the pick.
  await page.locator('#no-wallet').waitFor({ state: 'visible' });
  const panel = page.locator('[data-pay-panel]:not([hidden])');
  const bottom = () => panel.evaluate((element) => element.getBoundingClientRect().bottom + window.scrollY);
  const scan = await bottom();
  await panel.getByText('Send to an address', { exact: true }).click();
  const send = await bottom();
  const whole = await page.evaluate(() => document.documentElement.scrollHeight);
  const token = await page.locator('input[name="accepted"]:checked').evaluate((radio) => {
    const label = radio.closest('label')?.textContent?.replace(/\s+/g, ' ').trim();
    return label ?? '';
  });
  await context.close();
  const screens = (px: number) => (px / PHONE.height).toFixed(2);
  process.stdout.write(
    `== (b) the default way to pay at ${PHONE.width}x${PHONE.height} in Chromium (preselected: ${token})\n`,
  );
  process.stdout.write(
    `top of the page to the bottom of the Scan panel:  ${Math.round(scan)} px = ${screens(scan)} screens\n`,
  );
  process.stdout.write(
    `top of the page to the bottom of the Send panel:  ${Math.round(send)} px = ${screens(send)} screens\n`,
  );
  process.stdout.write(`whole page (Send open):                           ${whole} px = ${screens(whole)} screens\n`);
  const verdict = Math.max(scan, send) <= PATH_BUDGET_SCREENS * PHONE.height ? 'met' : 'NOT met';
  process.stdout.write(`target: either within ${PATH_BUDGET_SCREENS} screen heights: ${verdict}\n\n`);
}

/** A port nothing listens on now, for Chromium's DevTools endpoint. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/**
 * (c) Lighthouse's scores with its mobile preset (a mid-range phone on a slow 4G network, simulated), on the same
 * Chromium through its DevTools port, each run in a fresh tab; audits that did not pass are named.
 */
async function measureLighthouse(checkoutUrl: string): Promise<void> {
  const port = await freePort();
  const browser = await launchChromium([`--remote-debugging-port=${port}`]);
  const scores: Record<(typeof CATEGORIES)[number], number[]> = {
    performance: [],
    accessibility: [],
    'best-practices': [],
  };
  /** Audits that counted and did not pass, by category and title, with what each run showed. */
  const failed = new Map<string, string[]>();
  const version = JSON.parse(
    await fs.readFile(path.join(ROOT, 'node_modules/lighthouse/package.json'), 'utf8'),
  ).version;
  process.stdout.write(`== (c) Lighthouse ${version}, mobile preset, ${LIGHTHOUSE_RUNS} runs
`);
  process.stdout.write(
    row(['run', 'perf', 'a11y', 'best', ...METRICS.map(([, short]) => short)], [4, 6, 6, 6, 8, 8, 8, 8, 8]),
  );
  try {
    for (let run = 1; run <= LIGHTHOUSE_RUNS; run++) {
      const result = await lighthouse(checkoutUrl, {
        port,
        output: 'json',
        logLevel: 'error',
        onlyCategories: [...CATEGORIES],
      });
      if (!result) throw new Error('Lighthouse gave no result');
      const { lhr } = result;
      const cells: (string | number)[] = [run];
      for (const category of CATEGORIES) {
        const score = Math.round((lhr.categories[category]?.score ?? 0) * 100);
        scores[category].push(score);
        cells.push(score);
        for (const reference of lhr.categories[category]?.auditRefs ?? []) {
          const audit = lhr.audits[reference.id];
          if (reference.weight > 0 && audit?.score !== null && audit?.score !== undefined && audit.score < 1) {
            const key = `${category}: ${audit.title}`;
            failed.set(key, [
              ...(failed.get(key) ?? []),
              `run ${run}${audit.displayValue ? ` ${audit.displayValue}` : ''}`,
            ]);
          }
        }
      }
      for (const [id] of METRICS) cells.push(lhr.audits[id]?.displayValue?.replace(/\s/g, ' ') ?? '');
      process.stdout.write(row(cells, [4, 6, 6, 6, 8, 8, 8, 8, 8]));
    }
  } finally {
    await browser.close();
  }
  for (const category of CATEGORIES) {
    const figure = median(scores[category]);
    const verdict = figure >= TARGETS[category] ? 'met' : 'NOT met';
    process.stdout.write(
      `${category}: median ${figure} (min ${Math.min(...scores[category])}, max ${Math.max(...scores[category])}; target >= ${TARGETS[category]}: ${verdict})\n`,
    );
  }
  for (const [audit, runs] of failed) process.stdout.write(`below full marks: ${audit} (${runs.join(', ')})\n`);
}

/**
 * The hosted checkout page as a new buyer on a phone meets it, for a 10.00 USD payment on the devnet (nine ways to
 * pay): what it loads, how far the default way to pay reaches down the page, and Lighthouse's scores.
 */
export async function runCheckoutBenchmark(): Promise<void> {
  const bench = await startDevnetBench('checkout');
  let browser: Browser | undefined;
  try {
    const { post } = bench;
    const created = await post('/v1/merchants', {
      merchantName: 'Corner Shop',
      merchantEmail: 'owner@corner-shop.com',
    });
    const payment = await post(
      '/v1/payments',
      { amount: { unit: 'iso4217/USD', value: '1000' }, referenceId: randomUUID() },
      { 'merchant-id': created.merchant.id },
    );
    const checkoutUrl: string = payment.gatewayUrl;
    process.stdout.write(`checkout page of a 10.00 USD payment on the devnet: ${checkoutUrl}\n\n`);

    await measureFirstLoad(checkoutUrl);
    browser = await launchChromium();
    await measurePath(browser, checkoutUrl);
    await measureLighthouse(checkoutUrl);
  } finally {
    await browser?.close();
    await bench.close();
  }
}
