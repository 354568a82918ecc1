import { randomUUID } from 'node:crypto';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommonRouteTests } from '../support/commonRouteTests.ts';
import { createTestCertificate, type LogoServer, serveBytes, startLogoServer } from '../support/logoServer.ts';
import {
  call,
  expectErrorBody,
  newPartner,
  startTestServer,
  type TestPartner,
  type TestServer,
} from '../support/testServer.ts';

const validBody = { merchantName: 'Corner Shop', merchantEmail: 'owner@corner-shop.com' };

function createRequest(
  server: TestServer,
  apiKey: string,
  body: unknown,
  idempotencyKey: string | null = randomUUID(),
) {
  return call(server, '/v1/merchants', {
    method: 'POST',
    headers: { 'api-key': apiKey, ...(idempotencyKey === null ? {} : { 'idempotency-key': idempotencyKey }) },
    body,
  });
}

const NAMES_THAT_SHOW_NOTHING = [
  ['a Braille blank', '\u2800'],
  ['a Hangul filler', '\u3164'],
  ['a Hangul choseong filler', '\u115f'],
  ['a halfwidth Hangul filler', '\uffa0'],
  ['a Mongolian vowel separator', '\u180e'],
  ['a combining grapheme joiner', '\u034f'],
  ['a soft hyphen', '\u00ad'],
  ['a tag space', '\u{e0020}'],
  ['a musical begin-beam', '\u{1d173}'],
  ['combining marks only', '\u0301\u0308\u0327'],
  ['fillers between spaces', ' \u3164\u2800\u3164 '],
];

describe('POST /v1/merchants', () => {
  let server: TestServer;
  let partner: TestPartner;
  let logoServer: LogoServer;
  let logoPng: Buffer;

  beforeAll(async () => {
    const certificate = await createTestCertificate();
    logoPng = await sharp({ create: { width: 600, height: 600, channels: 4, background: '#3366ff80' } })
      .png()
      .toBuffer();
    const tiny = await sharp({ create: { width: 100, height: 100, channels: 3, background: '#000' } })
      .png()
      .toBuffer();
    logoServer = await startLogoServer({
      host: '127.0.0.1',
      certificate,
      routes: { '/logo.png': serveBytes(logoPng, 'image/png'), '/tiny.png': serveBytes(tiny, 'image/png') },
    });
    server = await startTestServer({
      context: {
        logoFetch: {
          allowPrivateHosts: true,
          extraCaCertificates: [certificate.cert],
          lookup: async () => [{ address: '127.0.0.1', family: 4 }],
        },
      },
    });
    partner = await newPartner(server.db);
  });
  afterAll(async () => {
    await server.close();
    await logoServer.close();
  });

  describe('happy path', () => {
    it('creates an active merchant and returns it with 201', async () => {
      const result = await createRequest(server, partner.apiKey, validBody);
      expect(result.status).toBe(201);
      expect(result.body.merchant).toMatchObject({
        name: 'Corner Shop',
        email: 'owner@corner-shop.com',
        status: 'active',
        iconUrl: null,
      });
      expect(result.body.merchant.id).toMatch(/^mrch_[0-9A-Z]{26}$/);
      expect(new Date(result.body.merchant.createdAt).toISOString()).toBe(result.body.merchant.createdAt);
    });

    it('replays the original response for the same key and body, creating nothing new', async () => {
      const key = randomUUID();
      const first = await createRequest(server, partner.apiKey, validBody, key);
      const second = await createRequest(server, partner.apiKey, validBody, key);
      expect(second.status).toBe(201);
      expect(second.text).toBe(first.text);
      expect(second.headers.get('idempotent-replayed')).toBe('true');
      const count = await server.db
        .selectFrom('merchants')
        .select(server.db.fn.countAll<string>().as('n'))
        .where('id', '=', first.body.merchant.id)
        .executeTakeFirstOrThrow();
      expect(count.n).toBe('1');
    });

    it('stores the name without surrounding white space', async () => {
      const result = await createRequest(server, partner.apiKey, {
        ...validBody,
        merchantName: ' \t Trimmed Shop\u00a0\n',
      });
      expect(result.status, result.text).toBe(201);
      expect(result.body.merchant.name).toBe('Trimmed Shop');
      const row = await server.db
        .selectFrom('merchants')
        .select('name')
        .where('id', '=', result.body.merchant.id)
        .executeTakeFirstOrThrow();
      expect(row.name).toBe('Trimmed Shop');
    });

    it('applies the length limit to the trimmed name', async () => {
      const longest = 'x'.repeat(256);
      const padded = await createRequest(server, partner.apiKey, { ...validBody, merchantName: `  ${longest}  ` });
      expect(padded.status, padded.text).toBe(201);
      expect(padded.body.merchant.name).toBe(longest);
    });

    it('takes iconUrl null as no logo, and as the same request as one without iconUrl', async () => {
      const key = randomUUID();
      const result = await createRequest(server, partner.apiKey, { ...validBody, iconUrl: null }, key);
      expect(result.status, result.text).toBe(201);
      expect(result.body.merchant.iconUrl).toBeNull();
      const replay = await createRequest(server, partner.apiKey, validBody, key);
      expect([replay.status, replay.text]).toEqual([201, result.text]);
    });

    it('fetches the logo during the call and serves its own copy', async () => {
      const result = await createRequest(server, partner.apiKey, {
        ...validBody,
        iconUrl: `https://logo.test:${logoServer.port}/logo.png`,
      });
      expect(result.status, result.text).toBe(201);
      const iconUrl: string = result.body.merchant.iconUrl;
      expect(iconUrl).toMatch(new RegExp(`^${server.url}/assets/logos/[a-f0-9]{64}\\.png$`));
      const logo = await fetch(iconUrl);
      expect(logo.status).toBe(200);
      expect(logo.headers.get('content-type')).toBe('image/png');
      expect(logo.headers.get('cache-control')).toContain('immutable');
      expect(Buffer.from(await logo.arrayBuffer()).equals(logoPng)).toBe(true);
    });
  });

  describe('errors', () => {
    it('requires an Idempotency-Key', async () => {
      const result = await createRequest(server, partner.apiKey, validBody, null);
      expect(result.status).toBe(400);
      expect(expectErrorBody(result).code).toBe('missing_idempotency_key');
    });

    it('refuses a reused key with another body and creates nothing', async () => {
      const key = randomUUID();
      await createRequest(server, partner.apiKey, validBody, key);
      const result = await createRequest(server, partner.apiKey, { ...validBody, merchantName: 'Other' }, key);
      expect(result.status).toBe(409);
      expect(expectErrorBody(result).code).toBe('idempotency_conflict');
      const others = await server.db
        .selectFrom('merchants')
        .select('id')
        .where('partner_id', '=', partner.partnerId)
        .where('name', '=', 'Other')
        .execute();
      expect(others).toEqual([]);
    });

    it.each([
      ['missing name', { merchantEmail: 'a@b.co' }, 'merchantName'],
      ['empty name', { ...validBody, merchantName: '' }, 'merchantName'],
      ['name over 256 characters', { ...validBody, merchantName: 'x'.repeat(257) }, 'merchantName'],
      ['name not a string', { ...validBody, merchantName: 42 }, 'merchantName'],
      ['missing email', { merchantName: 'Shop' }, 'merchantEmail'],
      ['email with a leading dot', { ...validBody, merchantEmail: '.owner@shop.com' }, 'merchantEmail'],
      ['email with consecutive dots', { ...validBody, merchantEmail: 'ow..ner@shop.com' }, 'merchantEmail'],
      ['email without a dot in the domain', { ...validBody, merchantEmail: 'owner@localhost' }, 'merchantEmail'],
      ['email with a numeric top-level label', { ...validBody, merchantEmail: 'owner@shop.c0m' }, 'merchantEmail'],
      ['email with a one-letter top-level label', { ...validBody, merchantEmail: 'owner@shop.c' }, 'merchantEmail'],
    ])('refuses %s with params_validation naming the field', async (_name, body, field) => {
      const result = await createRequest(server, partner.apiKey, body);
      expect(result.status).toBe(400);
      const error = expectErrorBody(result);
      expect(error.code).toBe('params_validation');
      expect(error.issues?.map((issue) => issue.field)).toContain(field);
    });

    it.each([
      ['a blank name', '  \t ', 'must not be blank'],
      [
        'a name with a bidirectional control',
        'Corner\u202eShop',
        'must not contain bidirectional control characters (found U+202E)',
      ],
      [
        'a name with a zero-width space',
        'Corner\u200bShop',
        'must not contain invisible or control characters (found U+200B)',
      ],
    ])(
      'refuses %s with params_validation on merchantName and creates nothing',
      async (_name, merchantName, message) => {
        const merchantCount = async () =>
          (
            await server.db
              .selectFrom('merchants')
              .select(server.db.fn.countAll<string>().as('n'))
              .where('partner_id', '=', partner.partnerId)
              .executeTakeFirstOrThrow()
          ).n;
        const before = await merchantCount();
        const result = await createRequest(server, partner.apiKey, { ...validBody, merchantName });
        expect([result.status, expectErrorBody(result).code]).toEqual([400, 'params_validation']);
        expect(expectErrorBody(result).issues).toEqual([{ field: 'merchantName', message }]);
        expect(await merchantCount()).toBe(before);
      },
    );

    it.each(NAMES_THAT_SHOW_NOTHING)(
      'refuses a name of %s, which shows nothing, with params_validation on merchantName',
      async (_name, merchantName) => {
        const result = await createRequest(server, partner.apiKey, { ...validBody, merchantName });
        expect([result.status, expectErrorBody(result).code]).toEqual([400, 'params_validation']);
        expect(expectErrorBody(result).issues).toEqual([
          { field: 'merchantName', message: expect.stringMatching(/visible character/) },
        ]);
      },
    );

    it('reports every broken field at once', async () => {
      const result = await createRequest(server, partner.apiKey, { merchantName: '', merchantEmail: 'nope' });
      expect(
        expectErrorBody(result)
          .issues?.map((issue) => issue.field)
          .sort(),
      ).toEqual(['merchantEmail', 'merchantName']);
    });

    it('refuses a logo that breaks a rule, naming it, and creates nothing', async () => {
      const result = await createRequest(server, partner.apiKey, {
        ...validBody,
        merchantName: 'Tiny logo shop',
        iconUrl: `https://logo.test:${logoServer.port}/tiny.png`,
      });
      expect(result.status).toBe(400);
      const error = expectErrorBody(result);
      expect(error.code).toBe('params_validation');
      expect(error.issues?.[0]?.field).toBe('iconUrl');
      expect(error.issues?.[0]?.message).toMatch(/500/);
      const rows = await server.db.selectFrom('merchants').select('id').where('name', '=', 'Tiny logo shop').execute();
      expect(rows).toEqual([]);
    });

    it('refuses an http logo URL', async () => {
      const result = await createRequest(server, partner.apiKey, {
        ...validBody,
        iconUrl: 'http://logo.test/logo.png',
      });
      expect(expectErrorBody(result).issues?.[0]?.field).toBe('iconUrl');
    });

    it('refuses malformed JSON, a non-JSON content type and an empty body with invalid_params or params_validation', async () => {
      const headers = { 'api-key': partner.apiKey, 'idempotency-key': randomUUID() };
      const malformed = await call(server, '/v1/merchants', {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        rawBody: '{"merchantName":',
      });
      expect([malformed.status, expectErrorBody(malformed).code]).toEqual([400, 'invalid_params']);
      const text = await call(server, '/v1/merchants', {
        method: 'POST',
        headers: { ...headers, 'content-type': 'text/plain' },
        rawBody: 'hello',
      });
      expect([text.status, expectErrorBody(text).code]).toEqual([400, 'invalid_params']);
      const empty = await call(server, '/v1/merchants', { method: 'POST', headers });
      expect(empty.status).toBe(400);
      expect(['invalid_params', 'params_validation']).toContain(expectErrorBody(empty).code);
      const array = await call(server, '/v1/merchants', { method: 'POST', headers, body: [validBody] });
      expect([array.status, expectErrorBody(array).code]).toEqual([400, 'params_validation']);
    });

    it('refuses an over-long Idempotency-Key', async () => {
      const result = await createRequest(server, partner.apiKey, validBody, 'k'.repeat(256));
      expect([result.status, expectErrorBody(result).code]).toEqual([400, 'params_validation']);
    });
  });
});

runCommonRouteTests({
  name: 'POST /v1/merchants',
  scope: 'merchants',
  request: async () => ({
    method: 'POST',
    path: '/v1/merchants',
    body: validBody,
    headers: { 'idempotency-key': 'common' },
  }),
});
