import type { FastifyReply, FastifyRequest } from 'fastify';
import type { App, AppContext } from '../context.ts';
import { logoUrl } from '../merchants/merchantResource.ts';
import { fiatCurrency } from '../payments/currencies.ts';
import { type PaymentRow, toStatusView } from '../payments/paymentResource.ts';
import { buyerFacingStatus } from '../payments/stateMachine.ts';
import { type AcceptedOption, acceptedOptions } from './acceptedOptions.ts';
import { checkoutAssetUrls, checkoutCatalogueUrl } from './assets.ts';
import { ensureCheckoutAppId } from './checkoutApp.ts';
import { type AcceptedChoice, renderCheckoutPage, renderNotFoundPage } from './checkoutPage.ts';
import { checkoutContentSecurityPolicy } from './checkoutPolicy.ts';
import { solanaPayPanels } from './solanaPayPanel.ts';
import { checkoutDeposits } from './checkoutDeposits.ts';
import { depositPanels } from './depositPanel.ts';
import { figure, html } from './html.ts';
import { sendCompressed } from '../http/compressedReply.ts';
import { type CheckoutLocale, negotiateLocale } from '@paygate/web/checkout/i18n/locales.ts';
import { translator } from '@paygate/web/checkout/i18n/translator.ts';
import { sendLandingPage } from './showLandingPage.ts';
import { qrCodeSvg } from './qrCode.ts';
import { receivedParts } from '../deposits/receivedParts.ts';
import { formatFiatAmount, preferredOptionIndex, redirectTargets } from './checkoutView.ts';
import {
  formatTimeLeft,
  formatTokenAmount,
  paidWithParts,
  receivedFingerprint,
  transactionUrl,
} from '@paygate/web/checkout/view.ts';

/** The longest a page waits for a token's price before listing the payment without that token. */
const PRICE_WAIT_MS = 2_000;

/** Ids that look like payment ids; anything else at the checkout root is left to the API's own 404. */
const PAYMENT_ID = /^pay_[A-Za-z0-9_-]{1,128}$/;

/**
 * The buyer checkout page at `{checkout_url}/<paymentId>` and `{checkout_url}/?pid=<paymentId>` (D1): who is
 * paid, how much, time left, a QR code of the link, the live status and the browser wallet; 404 page otherwise
 * (but for `/` itself, the landing page). It speaks the language `?locale=` names, else the buyer's
 * (`Accept-Language`), else English.
 */
export function registerShowCheckoutPage(app: App, ctx: AppContext, prefix: string): void {
  let checkoutAppId: Promise<string> | undefined;
  const appId = () => {
    checkoutAppId ??= ensureCheckoutAppId(ctx.db).catch((error: unknown) => {
      checkoutAppId = undefined;
      throw error;
    });
    return checkoutAppId;
  };

  /** The accepted list of an open payment; none when prices cannot be had now (the QR code and link still work). */
  async function acceptedChoices(
    payment: PaymentRow,
    locale: CheckoutLocale,
    request: FastifyRequest,
  ): Promise<AcceptedChoice[]> {
    if (!ctx.chainServices) return [];
    let accepted: AcceptedOption[];
    try {
      accepted = await acceptedOptions(ctx.chains, ctx.chainServices.prices, payment, { waitMs: PRICE_WAIT_MS });
    } catch (error) {
      request.log.warn({ err: error, paymentId: payment.id }, 'checkout page shows no accepted tokens: pricing failed');
      return [];
    }
    const atPar = ctx.chains
      .tokens()
      .filter((token) => token.peggedTo === payment.fiat_currency)
      .map((token) => token.caip19);
    // After a transfer of less than asked, the token it was in, whose panel asks for the rest.
    const underpaid = payment.exceptions.find((exception) => exception.type === 'underpaid')?.asset;
    const underpaidIndex = accepted.findIndex(({ token }) => token.caip19 === underpaid);
    const preferred =
      underpaidIndex >= 0
        ? underpaidIndex
        : preferredOptionIndex(
            accepted.map(({ token }) => token.caip19),
            atPar,
          );
    return accepted.map(({ network, token, amount }, index) => ({
      asset: token.caip19,
      network: network.caip2,
      namespace: network.namespace,
      networkName: network.name,
      amount: amount.toString(),
      amountText: formatTokenAmount(amount.toString(), { assetSymbol: token.symbol, decimals: token.decimals }, locale),
      checked: index === preferred,
    }));
  }

  async function respond(request: FastifyRequest, reply: FastifyReply, paymentId: string | undefined) {
    const { locale: requested } = request.query as Record<string, unknown>;
    const locale = negotiateLocale({
      query: typeof requested === 'string' ? requested : undefined,
      acceptLanguage: request.headers['accept-language'],
    });
    const t = translator(locale);
    const assets = await checkoutAssetUrls(prefix);
    reply
      .header('content-security-policy', checkoutContentSecurityPolicy(ctx.config))
      .header('cache-control', 'no-store')
      .type('text/html; charset=utf-8');
    const payment =
      paymentId && PAYMENT_ID.test(paymentId)
        ? await ctx.db.selectFrom('payments').selectAll().where('id', '=', paymentId).executeTakeFirst()
        : undefined;
    const acceptEncoding = request.headers['accept-encoding'];
    if (!payment) return sendCompressed(reply.code(404), renderNotFoundPage(assets, locale), acceptEncoding);
    const merchant = await ctx.db
      .selectFrom('merchants')
      .selectAll()
      .where('id', '=', payment.merchant_id)
      .executeTakeFirstOrThrow();

    const now = ctx.clock.now();
    const status = buyerFacingStatus(payment, now);
    const currency = fiatCurrency(payment.fiat_currency);
    const amountText = currency
      ? formatFiatAmount(payment.fiat_value, currency, locale)
      : `${payment.fiat_value} ${payment.fiat_currency}`;
    const statusView = toStatusView(payment, ctx.chains, now);
    const paidInfo = statusView.info;
    const paid = paidInfo?.optionAmount;
    const explorerUrls: Record<string, string> = Object.fromEntries(
      ctx.chains.networks.flatMap((network) => (network.explorerUrl ? [[network.caip2, network.explorerUrl]] : [])),
    );
    const paidOn = payment.token_asset ? ctx.chains.token(payment.token_asset)?.chain : undefined;
    const explorerUrl = paidOn ? explorerUrls[paidOn] : undefined;
    const paymentLink = `${ctx.config.checkoutUrl}/${payment.id}`;
    // A merchant an operator suspended (or that was deleted) is offered no way to pay: no tokens, panels or QR code.
    const takingPayments = merchant.status === 'active' && merchant.deleted_at === null;
    const accepted =
      status === 'requires_action' && takingPayments ? await acceptedChoices(payment, locale, request) : [];
    // Its QR codes are inline SVG, one or two per way to pay: compressed, the page is a few times smaller.
    return sendCompressed(
      reply,
      renderCheckoutPage({
        paymentId: payment.id,
        paymentLink,
        status,
        merchantName: merchant.name,
        logoUrl: merchant.logo_file ? logoUrl(ctx.config.baseUrl, merchant.logo_file) : null,
        amountText,
        expiresAt: payment.expires_at,
        now,
        timeLeftText: formatTimeLeft(payment.expires_at, now),
        qrSvg: await qrCodeSvg(paymentLink, t('page.qrLabel')),
        redirect: redirectTargets(payment.success_url, payment.error_url, payment.id),
        paidText: paid?.display
          ? html`${paidWithParts(t, { value: paid.value, display: paid.display }, locale, figure)}`
          : undefined,
        failureCode: statusView.failureCode,
        transactionLink: explorerUrl && paidInfo ? transactionUrl(explorerUrl, paidInfo.txId) : undefined,
        explorerUrls,
        takingPayments,
        accepted,
        anyWalletPanels: takingPayments
          ? html`${await Promise.all([
              solanaPayPanels(ctx, payment, merchant.name, accepted, t),
              checkoutDeposits(ctx, payment, accepted, locale).then((choices) => depositPanels(choices, t)),
            ])}`
          : undefined,
        ...(accepted.length ? { received: receivedFingerprint(await receivedParts(ctx, payment)) } : {}),
        locale,
        catalogueUrl: await checkoutCatalogueUrl(prefix, locale),
        apiBaseUrl: ctx.config.baseUrl,
        appId: await appId(),
        assets,
      }),
      acceptEncoding,
    );
  }

  const config = { auth: false as const };
  app.get(`${prefix}/:paymentId(${PAYMENT_ID.source})`, { config, schema: { hide: true } }, async (request, reply) =>
    respond(request, reply, (request.params as { paymentId: string }).paymentId),
  );
  for (const path of new Set([`${prefix}/`, prefix || '/'])) {
    app.get(path, { config, schema: { hide: true } }, async (request, reply) => {
      const query = request.query as Record<string, unknown>;
      // `/` with no payment named is the service's landing page; `?pid=` with a lost id stays "not found".
      if (prefix === '' && !('pid' in query)) return sendLandingPage(reply, ctx, prefix);
      return respond(request, reply, typeof query.pid === 'string' ? query.pid : undefined);
    });
  }
}
