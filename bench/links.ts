import fs from 'node:fs/promises';
import { get } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { brotliDecompressSync } from 'node:zlib';
import { connect, migrateToLatest } from '../packages/server/src/db/database.ts';
import { startEmbeddedPostgres } from '../packages/server/src/db/embeddedPostgres.ts';
import { createPartner } from '../packages/server/src/partners/partners.ts';
import { partnerPost, percentile, type Spawned, startMainnetService } from './support.ts';

/** The page and its stylesheet, brotli-compressed as served, at most. */
const FIRST_LOAD_BUDGET_BYTES = 50 * 1024;
const VISITS_AT_ONCE = 200;
const LIMITED_VISITS = 50;
const USE_LIMIT = 10;

/** The bytes a GET is answered with, as sent (brotli when the service compresses it). */
function brotliBytes(url: string): Promise<{ bytes: number; body: string }> {
  return new Promise((resolve, reject) => {
    get(url, { headers: { 'accept-encoding': 'br' } }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const raw = Buffer.concat(chunks);
        const body = response.headers['content-encoding'] === 'br' ? brotliDecompressSync(raw) : raw;
        resolve({ bytes: raw.length, body: body.toString('utf8') });
      });
      response.on('error', reject);
    }).on('error', reject);
  });
}

/** A visit as a browser makes it: the page, then its form submitted; the payment the answer leads to. */
async function visit(linkUrl: string): Promise<{ status: number; paymentId: string | undefined; ms: number }> {
  const page = await (await fetch(linkUrl)).text();
  const visitId = /name="visit" value="([A-Za-z0-9_-]+)"/.exec(page)?.[1] ?? '';
  const started = performance.now();
  const answer = await fetch(linkUrl, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ visit: visitId }).toString(),
  });
  const ms = performance.now() - started;
  await answer.arrayBuffer();
  return { status: answer.status, paymentId: answer.headers.get('location')?.split('/').at(-1), ms };
}

/**
 * A payment link's page under a crowd: what its first load weighs, 200 visits at once (each must make its own
 * payment, none shared or lost), and 50 at once on a link of 10 uses (exactly 10 payments).
 */
export async function runLinksBenchmark(): Promise<void> {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'paygate-bench-links-'));
  const database = await startEmbeddedPostgres(dataDir);
  const db = connect(database.url, 2);
  let spawned: Spawned | undefined;
  try {
    await migrateToLatest(db, database.url);
    const partner = await createPartner(db, 'Bench partner');
    spawned = await startMainnetService(database.url, dataDir, ['eip155:8453']);
    const post = partnerPost(spawned.url, partner.apiKey);
    const merchant = (await post('/v1/merchants', { merchantName: 'Corner Shop', merchantEmail: 'owner@corner.shop' }))
      .merchant;
    const newLink = (extra: object = {}) =>
      post(
        '/v1/payment-links',
        {
          amount: { unit: 'iso4217/USD', value: '450' },
          description: 'Flat white',
          quantity: { maximum: 6 },
          ...extra,
        },
        { 'merchant-id': merchant.id },
      );

    const link = await newLink();
    const page = await brotliBytes(link.url);
    const stylesheet = /<link rel="stylesheet" href="([^"]+)"/.exec(page.body)?.[1];
    const css = stylesheet ? await brotliBytes(new URL(stylesheet, link.url).href) : { bytes: 0 };
    const firstLoad = page.bytes + css.bytes;
    const verdict = firstLoad <= FIRST_LOAD_BUDGET_BYTES ? 'met' : 'NOT met';
    process.stdout.write(
      `first load of a payment link page (HTML ${page.bytes} B + CSS ${css.bytes} B, brotli, no script): ${(firstLoad / 1024).toFixed(1)} KB (target <= ${FIRST_LOAD_BUDGET_BYTES / 1024} KB: ${verdict})\n`,
    );

    const started = performance.now();
    const visits = await Promise.all(Array.from({ length: VISITS_AT_ONCE }, () => visit(link.url)));
    const wallMs = performance.now() - started;
    const made = new Set(visits.map((each) => each.paymentId).filter(Boolean));
    const stored = await db
      .selectFrom('payments')
      .select((eb) => eb.fn.countAll<string>().as('count'))
      .where('payment_link_id', '=', link.id)
      .executeTakeFirstOrThrow();
    const latencies = visits.map((each) => each.ms).sort((a, b) => a - b);
    process.stdout.write(
      `${VISITS_AT_ONCE} visits at once: ${visits.filter((each) => each.status === 303).length} led to a checkout, ${made.size} distinct payments, ${stored.count} stored for the link (${Number(stored.count) === VISITS_AT_ONCE && made.size === VISITS_AT_ONCE ? 'none shared, none lost' : 'MISMATCH'}); form submission p50 ${percentile(latencies, 0.5).toFixed(0)} ms, p95 ${percentile(latencies, 0.95).toFixed(0)} ms; all in ${wallMs.toFixed(0)} ms\n`,
    );

    const limited = await newLink({ maxUses: USE_LIMIT });
    const crowd = await Promise.all(Array.from({ length: LIMITED_VISITS }, () => visit(limited.url)));
    const paid = crowd.filter((each) => each.status === 303).length;
    const refused = crowd.filter((each) => each.status === 409).length;
    process.stdout.write(
      `${LIMITED_VISITS} visits at once on a link of ${USE_LIMIT} uses: ${paid} payments made, ${refused} told it is all taken (${paid === USE_LIMIT && refused === LIMITED_VISITS - USE_LIMIT ? 'exact' : 'NOT exact'})\n`,
    );
  } finally {
    await spawned?.stop();
    await db.destroy();
    await database.stop();
    await fs.rm(dataDir, { recursive: true, force: true });
  }
}
