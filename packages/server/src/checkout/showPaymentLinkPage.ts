import { randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { formatMinorUnits, parseMinorUnits } from '@paygate/client/money';
import { type CheckoutLocale, negotiateLocale } from '@paygate/web/checkout/i18n/locales.ts';
import type { App, AppContext } from '../context.ts';
import { ApiError } from '../http/errors.ts';
import { sendCompressed } from '../http/compressedReply.ts';
import { logoUrl } from '../merchants/merchantResource.ts';
import { fiatCurrency } from '../payments/currencies.ts';
import { paymentOfVisit, type VisitRefusal } from '../paymentLinks/linkVisit.ts';
import { linkStatusOf, type PaymentLinkRow, usesOfLinks } from '../paymentLinks/paymentLinkResource.ts';
import { RememberedFees } from '../settlement/feeSchedules.ts';
import { checkoutAssetUrls } from './assets.ts';
import { linkPageContentSecurityPolicy } from './checkoutPolicy.ts';
import { formatFiatAmount } from './checkoutView.ts';
import {
  type LinkFormProblem,
  type LinkPageModel,
  type LinkPageState,
  renderLinkNotFoundPage,
  renderPaymentLinkPage,
} from './paymentLinkPage.ts';

const LINK_ID = /^plink_[0-9A-HJKMNP-TV-Z]{26}$/;
const VISIT = /^[A-Za-z0-9_-]{22}$/;
/** A number as buyers type it: digits with one decimal point or comma, no grouping. */
const TYPED_AMOUNT = /^\d{1,18}(?:[.,]\d{1,6})?$/;

const newVisit = () => randomBytes(16).toString('base64url');

type LinkForm = { visit?: unknown; amount?: unknown; quantity?: unknown };

/**
 * A payment link's public page at `{checkout_url}/l/<id>`: a GET shows what is sold and its price (or a field for the
 * buyer's amount); the form's POST makes the visit's payment and sends the buyer to its checkout (303). A link that
 * is off, ended or used up says so. No script: it works in any browser, and a link preview that fetches it makes
 * no payment.
 */
export function registerShowPaymentLinkPage(app: App, ctx: AppContext, prefix: string): void {
  const fees = new RememberedFees();
  const config = { auth: false as const };
  const path = `${prefix}/l/:linkId`;

  function localeOf(request: FastifyRequest): CheckoutLocale {
    const { locale } = request.query as Record<string, unknown>;
    return negotiateLocale({
      query: typeof locale === 'string' ? locale : undefined,
      acceptLanguage: request.headers['accept-language'],
    });
  }

  async function send(request: FastifyRequest, reply: FastifyReply, status: number, page: string) {
    reply
      .code(status)
      .header('content-security-policy', linkPageContentSecurityPolicy(ctx.config))
      .header('cache-control', 'no-store')
      .type('text/html; charset=utf-8');
    return sendCompressed(reply, page, request.headers['accept-encoding']);
  }

  async function linkOf(request: FastifyRequest): Promise<PaymentLinkRow | undefined> {
    const { linkId } = request.params as { linkId: string };
    if (!LINK_ID.test(linkId)) return undefined;
    return ctx.db.selectFrom('payment_links').selectAll().where('id', '=', linkId).executeTakeFirst();
  }

  async function render(
    request: FastifyRequest,
    link: PaymentLinkRow,
    content: LinkPageModel['content'],
  ): Promise<string> {
    const merchant = await ctx.merchants.get(link.merchant_id);
    return renderPaymentLinkPage({
      linkId: link.id,
      locale: localeOf(request),
      assets: await checkoutAssetUrls(prefix),
      merchantName: merchant?.name ?? '',
      logoUrl: merchant?.logo_file ? logoUrl(ctx.config.baseUrl, merchant.logo_file) : null,
      description: link.description,
      imageUrl: link.image_url,
      content,
    });
  }

  function formContent(
    request: FastifyRequest,
    link: PaymentLinkRow,
    entered: { amount?: string; quantity?: number } = {},
    problem?: LinkFormProblem,
  ): LinkPageModel['content'] {
    const locale = localeOf(request);
    const currency = fiatCurrency(link.currency)!;
    const format = (minor: string) => formatFiatAmount(minor, currency, locale);
    const price =
      link.amount !== null
        ? { fixed: format(link.amount), maxQuantity: link.max_quantity }
        : { currency: link.currency, minimum: format(link.minimum_amount!), maximum: format(link.maximum_amount!) };
    const preset =
      link.preset_amount === null ? undefined : formatMinorUnits(BigInt(link.preset_amount), currency.decimals);
    return {
      form: true,
      visit: newVisit(),
      price,
      entered: { ...(preset === undefined ? {} : { amount: preset }), ...entered },
      ...(problem ? { problem } : {}),
    };
  }

  /** What the page shows of a link before a visit: its form, or why it takes none. */
  async function stateOf(link: PaymentLinkRow): Promise<LinkPageState | undefined> {
    const merchant = await ctx.merchants.get(link.merchant_id);
    if (merchant?.status !== 'active' || merchant.deleted_at !== null) return 'merchant_not_active';
    const now = ctx.clock.now();
    const uses = link.max_uses === null ? undefined : (await usesOfLinks(ctx.db, [link.id], now)).get(link.id);
    const status = linkStatusOf(link, uses?.succeeded ?? 0, now);
    if (status !== 'active') return status;
    if (link.max_uses !== null && (uses?.held ?? 0) >= link.max_uses) return 'all_taken';
    return undefined;
  }

  app.get(path, { config, schema: { hide: true } }, async (request, reply) => {
    const link = await linkOf(request);
    if (!link) {
      return send(request, reply, 404, renderLinkNotFoundPage(await checkoutAssetUrls(prefix), localeOf(request)));
    }
    const state = await stateOf(link);
    if (state) return send(request, reply, statusOfState(state), await render(request, link, { form: false, state }));
    return send(request, reply, 200, await render(request, link, formContent(request, link)));
  });

  app.register(async (scope) => {
    // The page's form posts as a browser does without JavaScript; only this route reads that encoding.
    scope.addContentTypeParser(
      'application/x-www-form-urlencoded',
      { parseAs: 'string', bodyLimit: 4 * 1024 },
      (_request, body, done) => done(null, Object.fromEntries(new URLSearchParams(body as string))),
    );
    scope.post(path, { config, schema: { hide: true } }, async (request, reply) => {
      const link = await linkOf(request);
      if (!link) {
        return send(request, reply, 404, renderLinkNotFoundPage(await checkoutAssetUrls(prefix), localeOf(request)));
      }
      const form = (typeof request.body === 'object' && request.body !== null ? request.body : {}) as LinkForm;
      const currency = fiatCurrency(link.currency)!;
      const typed = typeof form.amount === 'string' ? form.amount.trim().replace(/[\s\u00a0\u202f]/g, '') : '';
      const quantity =
        typeof form.quantity === 'string' && /^\d{1,3}$/.test(form.quantity) ? Number(form.quantity) : null;
      const entered = { ...(typed ? { amount: typed } : {}), ...(quantity === null ? {} : { quantity }) };
      const refuse = (status: number, problem: LinkFormProblem) =>
        render(request, link, formContent(request, link, entered, problem)).then((page) =>
          send(request, reply, status, page),
        );

      let amount: bigint | null = null;
      if (link.amount === null && typed) {
        amount = TYPED_AMOUNT.test(typed) ? parseMinorUnits(typed.replace(',', '.'), currency.decimals) : null;
        if (amount === null) {
          const example = formatFiatAmount(link.preset_amount ?? link.minimum_amount!, currency, 'en').replace(
            /[^\d.]/g,
            '',
          );
          return refuse(400, { key: 'link.problem.amountNotANumber', example });
        }
      }
      const merchant = await ctx.merchants.get(link.merchant_id);
      if (!merchant)
        return send(request, reply, 200, await render(request, link, { form: false, state: 'merchant_not_active' }));
      const visit = typeof form.visit === 'string' && VISIT.test(form.visit) ? form.visit : newVisit();
      let result: Awaited<ReturnType<typeof paymentOfVisit>>;
      try {
        result = await paymentOfVisit(ctx, fees, link, merchant, { token: visit, amount, quantity });
      } catch (error) {
        // The partner's fees rose above the buyer's amount since the link was made.
        if (error instanceof ApiError && error.code === 'params_validation') {
          return refuse(400, {
            key: 'link.problem.amountBelow',
            minimum: formatFiatAmount(link.minimum_amount ?? link.amount!, currency, localeOf(request)),
          });
        }
        throw error;
      }
      if (result.payment) {
        const { locale } = request.query as Record<string, unknown>;
        const query = typeof locale === 'string' ? `?locale=${encodeURIComponent(locale)}` : '';
        return reply
          .code(303)
          .header('cache-control', 'no-store')
          .redirect(`${ctx.config.checkoutUrl}/${result.payment.id}${query}`, 303);
      }
      return answerRefusal(result.refused, link, localeOf(request), refuse, (state) =>
        render(request, link, { form: false, state }).then((page) => send(request, reply, statusOfState(state), page)),
      );
    });
  });

  function answerRefusal<T>(
    refusal: VisitRefusal,
    link: PaymentLinkRow,
    locale: CheckoutLocale,
    refuse: (status: number, problem: LinkFormProblem) => Promise<T>,
    showState: (state: LinkPageState) => Promise<T>,
  ): Promise<T> {
    const currency = fiatCurrency(link.currency)!;
    const format = (minor: string) => formatFiatAmount(minor, currency, locale);
    switch (refusal) {
      case 'amount_missing':
        return refuse(400, { key: 'link.problem.amountMissing' });
      case 'amount_below':
        return refuse(400, { key: 'link.problem.amountBelow', minimum: format(link.minimum_amount!) });
      case 'amount_above':
        return refuse(400, { key: 'link.problem.amountAbove', maximum: format(link.maximum_amount!) });
      case 'quantity_out_of_range':
        return refuse(400, { key: 'link.problem.quantity', maximum: link.max_quantity ?? 1 });
      case 'page_used':
        return refuse(409, { key: 'link.problem.pageUsed' });
      default:
        return showState(refusal);
    }
  }
}

/** Ended links are gone (410); the others answer 200 or, for a visit refused now, 409. */
function statusOfState(state: LinkPageState): number {
  if (state === 'all_taken') return 409;
  if (state === 'merchant_not_active') return 403;
  return 410;
}
