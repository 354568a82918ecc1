import { readFile } from 'node:fs/promises';
import { formatMinorUnits } from '@paygate/client/money';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.ts';
import { storeBuyerData } from '../../gateway/dataCollection/buyerData.ts';
import { buyerDataSchema } from '../../gateway/dataCollection/buyerDataSchema.ts';
import {
  type BuyerDataProblems,
  buyerDataFromForm,
  validateBuyerData,
} from '../../gateway/dataCollection/validateBuyerData.ts';
import { type CheckoutLocale, negotiateLocale } from '@paygate/web/checkout/i18n/locales.ts';
import { translator } from '@paygate/web/checkout/i18n/translator.ts';
import { fiatCurrency } from '../../payments/currencies.ts';
import type { PaymentRow } from '../../payments/paymentResource.ts';
import { buyerFacingStatus } from '../../payments/stateMachine.ts';
import { problemsIn, renderCollectDone, renderCollectForm, renderCollectRefused } from './collectFormPage.ts';

/**
 * The page's policy: its own script and stylesheet only (nothing inline), posting only to itself. Any site may
 * frame it, as web wallets show it in an iframe; the token in its URL is what limits what it can do.
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  'frame-ancestors *',
].join('; ');

const ASSETS = {
  'collect-form.js': 'text/javascript; charset=utf-8',
  'collect-form.css': 'text/css; charset=utf-8',
} as const;

async function loadAssets(): Promise<Map<string, { contentType: string; body: Buffer }>> {
  const entries = await Promise.all(
    Object.entries(ASSETS).map(async ([name, contentType]) => {
      const body = await readFile(fileURLToPath(new URL(`./assets/${name}`, import.meta.url)));
      return [name, { contentType, body }] as const;
    }),
  );
  return new Map(entries);
}

/**
 * The form's language: `?locale=` (the checkout page frames the form in its own), else the buyer's
 * (`Accept-Language`), else English. A post goes to the form's own URL, so it keeps the language.
 */
function formLocale(request: FastifyRequest): CheckoutLocale {
  const { locale } = request.query as Record<string, unknown>;
  return negotiateLocale({
    query: typeof locale === 'string' ? locale : undefined,
    acceptLanguage: request.headers['accept-language'],
  });
}

function amountText(payment: PaymentRow, locale: CheckoutLocale): string {
  const currency = fiatCurrency(payment.fiat_currency);
  if (!currency) return `${payment.fiat_value} ${payment.fiat_currency}`;
  // Formatted from the decimal text, never through a float.
  return new Intl.NumberFormat(locale, { style: 'currency', currency: currency.code }).format(
    formatMinorUnits(BigInt(payment.fiat_value), currency.decimals) as Intl.StringNumericLiteral,
  );
}

function sendPage(reply: FastifyReply, status: number, html: string): FastifyReply {
  // The page sets its own policy; the API-wide X-Frame-Options would keep web wallets from framing it.
  reply.raw.removeHeader('x-frame-options');
  return reply
    .code(status)
    .header('content-security-policy', CONTENT_SECURITY_POLICY)
    .header('cache-control', 'no-store')
    .type('text/html; charset=utf-8')
    .send(html);
}

type Resolved =
  | { ok: true; payment: PaymentRow; merchantName: string; scope: string }
  | { ok: false; status: number; html: string };

/** The payment a form link is for, or the page that refuses the link. */
async function resolveLink(ctx: AppContext, token: string, locale: CheckoutLocale): Promise<Resolved> {
  const now = ctx.clock.now();
  const checked = ctx.formTokens.check(token, now);
  if (!checked.ok && checked.reason === 'link_expired') {
    return { ok: false, status: 410, html: renderCollectRefused('link_expired', locale) };
  }
  const payment = checked.ok
    ? await ctx.db.selectFrom('payments').selectAll().where('id', '=', checked.claims.paymentId).executeTakeFirst()
    : undefined;
  if (!checked.ok || !payment) {
    return { ok: false, status: 403, html: renderCollectRefused('invalid_link', locale) };
  }
  if (buyerFacingStatus(payment, now) !== 'requires_action') {
    return { ok: false, status: 409, html: renderCollectRefused('payment_not_payable', locale) };
  }
  if (!ctx.config.dataEncryptionKey) {
    return { ok: false, status: 503, html: renderCollectRefused('unavailable', locale) };
  }
  const merchant = await ctx.db
    .selectFrom('merchants')
    .select('name')
    .where('id', '=', payment.merchant_id)
    .executeTakeFirstOrThrow();
  return { ok: true, payment, merchantName: merchant.name, scope: checked.claims.scope };
}

function formPage(
  ctx: AppContext,
  locale: CheckoutLocale,
  link: Extract<Resolved, { ok: true }>,
  values: Record<string, unknown>,
  problems: BuyerDataProblems,
): string {
  return renderCollectForm({
    locale,
    merchantName: link.merchantName,
    amountText: amountText(link.payment, locale),
    schema: buyerDataSchema(ctx.clock.now()),
    values,
    problems,
  });
}

/** The token is the rest of the path: a wildcard, as a parametric segment is capped at 100 characters. */
const TOKEN_PARAMS = { type: 'object', properties: { '*': { type: 'string', maxLength: 2000 } } } as const;
const tokenOf = (params: unknown) => (params as { '*': string })['*'];

/**
 * The buyer-data form (D14) at `{checkout_url}/collect/<token>`: shows the schema as a form, takes its
 * submission, stores it encrypted for the payment and the link's account, and tells the hosting wallet.
 */
export async function registerCollectFormRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const prefix = `${new URL(ctx.config.checkoutUrl).pathname.replace(/\/+$/, '')}/collect`;
  const assets = await loadAssets();
  const config = { auth: false as const };

  await app.register(async (scope) => {
    // The form posts as a browser does without JavaScript; only these routes read that encoding.
    scope.addContentTypeParser(
      'application/x-www-form-urlencoded',
      { parseAs: 'string', bodyLimit: 16 * 1024 },
      (_request, body, done) => done(null, Object.fromEntries(new URLSearchParams(body as string))),
    );

    scope.get(
      `${prefix}/assets/:file`,
      {
        config,
        schema: { hide: true, params: { type: 'object', properties: { file: { type: 'string', maxLength: 40 } } } },
      },
      async (request, reply) => {
        const asset = assets.get((request.params as { file: string }).file);
        if (!asset) return reply.code(404).type('text/plain; charset=utf-8').send('Not found');
        return reply.header('cache-control', 'public, max-age=300').type(asset.contentType).send(asset.body);
      },
    );

    scope.get(`${prefix}/*`, { config, schema: { hide: true, params: TOKEN_PARAMS } }, async (request, reply) => {
      const locale = formLocale(request);
      const link = await resolveLink(ctx, tokenOf(request.params), locale);
      if (!link.ok) return sendPage(reply, link.status, link.html);
      return sendPage(reply, 200, formPage(ctx, locale, link, {}, new Map()));
    });

    scope.post(`${prefix}/*`, { config, schema: { hide: true, params: TOKEN_PARAMS } }, async (request, reply) => {
      const locale = formLocale(request);
      const link = await resolveLink(ctx, tokenOf(request.params), locale);
      if (!link.ok) return sendPage(reply, link.status, link.html);
      const body = request.body;
      const values = buyerDataFromForm(
        typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {},
      );
      const result = validateBuyerData(values, ctx.clock.now());
      if (!result.ok) {
        return sendPage(
          reply,
          400,
          formPage(ctx, locale, link, values, problemsIn(translator(locale), result.reasons)),
        );
      }
      await storeBuyerData(ctx, link.payment.id, link.scope, 'form', result.data);
      return sendPage(reply, 200, renderCollectDone(link.merchantName, locale));
    });
  });
}
