import { describe, expect, it } from 'vitest';
import {
  GatewayError,
  GatewayNetworkError,
  UnknownChainError,
  UserRejectedError,
  WalletProviderError,
} from '../../../wallet/src/browser.ts';
import { renderCheckoutPage, renderNotFoundPage, type CheckoutPageModel } from '../../src/checkout/checkoutPage.ts';
import { escapeHtml } from '../../src/checkout/html.ts';
import { formatMinorUnits } from '../../src/money.ts';
import { checkoutContentSecurityPolicy, checkoutPathPrefix } from '../../src/checkout/checkoutPolicy.ts';
import {
  formatFiatAmount,
  formatTimeLeft,
  formatTokenAmount,
  preferredLocale,
  redirectFor,
  redirectTargets,
  refreshSecondsFor,
} from '../../src/checkout/checkoutView.ts';
import { explainWalletError } from '../../src/checkout/client/walletMessages.ts';
import { fiatCurrency } from '../../src/payments/currencies.ts';

describe('preferredLocale', () => {
  it('takes the highest-quality tag the runtime can format, in header order on ties', () => {
    expect(preferredLocale('de-DE,de;q=0.9,en;q=0.8')).toBe('de-DE');
    expect(preferredLocale('en;q=0.5, fr-CH;q=0.9')).toBe('fr-CH');
    expect(preferredLocale('ja, de')).toBe('ja');
  });

  it('falls back to en for a missing, wildcard, zero-quality or malformed header', () => {
    expect(preferredLocale(undefined)).toBe('en');
    expect(preferredLocale('*')).toBe('en');
    expect(preferredLocale('de;q=0')).toBe('en');
    expect(preferredLocale('not a tag!!, ;;;')).toBe('en');
    expect(preferredLocale('x'.repeat(10_000))).toBe('en');
  });
});

describe('amount formatting', () => {
  const usd = fiatCurrency('USD')!;

  it('turns minor units into exact decimal text', () => {
    expect(formatMinorUnits(1234n, 2)).toBe('12.34');
    expect(formatMinorUnits(5n, 2)).toBe('0.05');
    expect(formatMinorUnits(500n, 0)).toBe('500');
    expect(formatMinorUnits(1n, 6)).toBe('0.000001');
    expect(formatMinorUnits(-5n, 2)).toBe('-0.05');
  });

  it('formats with the currency digits for the locale, without float rounding', () => {
    expect(formatFiatAmount('1000', usd, 'en-US')).toBe('$10.00');
    expect(formatFiatAmount('123456', fiatCurrency('EUR')!, 'de-DE')).toBe('1.234,56\u00a0€');
    expect(formatFiatAmount('1500', fiatCurrency('JPY')!, 'ja-JP')).toBe('￥1,500');
    expect(formatFiatAmount('1234', fiatCurrency('BHD')!, 'en')).toBe('BHD\u00a01.234');
    // 2^53 + 1 cents would lose its last digit as a float.
    expect(formatFiatAmount('9007199254740993', usd, 'en-US')).toBe('$90,071,992,547,409.93');
  });

  it('formats token amounts with their symbol and network, dropping trailing zeros', () => {
    expect(formatTokenAmount('10000000', { assetSymbol: 'USDC', decimals: 6, networkName: 'Base' }, 'en')).toBe(
      '10 USDC on Base',
    );
    expect(formatTokenAmount('9199633', { assetSymbol: 'EURC', decimals: 6 }, 'de-DE')).toBe('9,199633 EURC');
    expect(formatTokenAmount('1', { assetSymbol: 'ETH', decimals: 18 }, 'en')).toBe('0.000000000000000001 ETH');
  });

  it('shows time left as m:ss or h:mm:ss, never negative', () => {
    const now = new Date('2026-01-01T00:00:00Z');
    expect(formatTimeLeft(new Date(now.getTime() + 14 * 60_000 + 5_900), now)).toBe('14:05');
    expect(formatTimeLeft(new Date(now.getTime() + 3_600_000 + 61_000), now)).toBe('1:01:01');
    expect(formatTimeLeft(new Date(now.getTime() - 5_000), now)).toBe('0:00');
  });
});

describe('checkout redirects (interface rule)', () => {
  it('redirects only when both URLs are valid HTTPS, adding the payment id', () => {
    expect(redirectTargets('https://shop.example/ok?order=7', 'https://shop.example/ko', 'pay_1')).toEqual({
      success: 'https://shop.example/ok?order=7&paymentId=pay_1',
      error: 'https://shop.example/ko?paymentId=pay_1',
    });
    expect(redirectTargets('https://shop.example/ok', null, 'pay_1')).toBeUndefined();
    expect(redirectTargets(null, 'https://shop.example/ko', 'pay_1')).toBeUndefined();
    expect(redirectTargets('https://shop.example/ok', 'http://shop.example/ko', 'pay_1')).toBeUndefined();
    expect(redirectTargets('https://shop.example/ok', 'not a url', 'pay_1')).toBeUndefined();
    expect(redirectTargets('javascript:alert(1)', 'https://shop.example/ko', 'pay_1')).toBeUndefined();
  });

  it('sends succeeded to success, other final states to error, and waits otherwise', () => {
    const targets = { success: 'https://s', error: 'https://e' };
    expect(redirectFor('succeeded', targets)).toBe('https://s');
    for (const status of ['failed', 'expired', 'cancelled'] as const)
      expect(redirectFor(status, targets)).toBe('https://e');
    for (const status of ['requires_action', 'processing'] as const)
      expect(redirectFor(status, targets)).toBeUndefined();
    expect(redirectFor('succeeded', undefined)).toBeUndefined();
  });

  it('refreshes a page without JavaScript only while the payment is not final', () => {
    expect(refreshSecondsFor('requires_action')).toBe(5);
    expect(refreshSecondsFor('processing')).toBe(3);
    for (const status of ['succeeded', 'failed', 'expired', 'cancelled'] as const)
      expect(refreshSecondsFor(status)).toBeUndefined();
  });
});

describe('checkout policy', () => {
  it('serves pages at the path of CHECKOUT_URL', () => {
    expect(checkoutPathPrefix('http://localhost:8080')).toBe('');
    expect(checkoutPathPrefix('https://example.com/pay/')).toBe('/pay');
  });

  it('allows only its own scripts and styles, and the API origin for images and calls', () => {
    const same = checkoutContentSecurityPolicy({
      baseUrl: 'https://pay.example',
      checkoutUrl: 'https://pay.example/checkout',
    });
    expect(same).toBe(
      "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; frame-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    );
    const split = checkoutContentSecurityPolicy({
      baseUrl: 'https://api.example',
      checkoutUrl: 'https://checkout.example',
    });
    expect(split).toContain("connect-src 'self' https://api.example;");
    expect(split).toContain("img-src 'self' https://api.example;");
  });
});

describe('checkout page markup', () => {
  const model: CheckoutPageModel = {
    paymentId: 'pay_01TEST',
    paymentLink: 'https://pay.example/pay_01TEST',
    status: 'requires_action',
    merchantName: '<script>alert("x")</script> & Co',
    logoUrl: null,
    amountText: '$10.00',
    expiresAt: new Date('2026-01-01T00:15:00Z'),
    now: new Date('2026-01-01T00:00:00Z'),
    timeLeftText: '15:00',
    qrSvg: '<svg role="img"></svg>',
    redirect: {
      success: 'https://shop.example/ok?a=1&paymentId=pay_01TEST',
      error: 'https://shop.example/ko?paymentId=pay_01TEST',
    },
    paidText: undefined,
    locale: 'en',
    apiBaseUrl: 'https://pay.example',
    appId: 'app_01CHECKOUT',
    evmChains: ['eip155:8453', 'eip155:1'],
    assets: { scriptUrl: '/assets/checkout/checkout.abc.js', styleUrl: '/assets/checkout/checkout.def.css' },
  };

  it('escapes every merchant-provided text', () => {
    expect(escapeHtml(`<a href="x">'&'</a>`)).toBe('&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;');
    const html = renderCheckoutPage(model);
    expect(html).not.toContain('<script>alert');
    expect(html).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; Co');
  });

  it('shows exactly the current view and no inline script or style', () => {
    const html = renderCheckoutPage({ ...model, status: 'processing' });
    const views = [...html.matchAll(/<section class="view view-(\w+)" data-view="\w+"( hidden)?/g)].map(
      ([, status, hidden]) => [status, !hidden],
    );
    expect(views).toEqual([
      ['requires_action', false],
      ['processing', true],
      ['succeeded', false],
      ['failed', false],
      ['expired', false],
      ['cancelled', false],
    ]);
    expect(html).not.toMatch(/<script(?![^>]*\ssrc=)[^>]*>|\sstyle=|\son[a-z]+=/i);
    expect(html).toContain('<noscript><meta http-equiv="refresh" content="3"></noscript>');
  });

  it('hands the script what it needs in data attributes, redirect targets included only when enabled', () => {
    const html = renderCheckoutPage(model);
    expect(html).toContain('data-app-id="app_01CHECKOUT"');
    expect(html).toContain('data-evm-chains="eip155:8453,eip155:1"');
    expect(html).toContain('data-success-url="https://shop.example/ok?a=1&amp;paymentId=pay_01TEST"');
    expect(renderCheckoutPage({ ...model, redirect: undefined })).not.toContain('data-success-url');
  });

  it('sends a final page without JavaScript on to the merchant, and leaves it alone without redirects', () => {
    const succeeded = renderCheckoutPage({ ...model, status: 'succeeded' });
    expect(succeeded).toContain(
      '<noscript><meta http-equiv="refresh" content="3;url=https://shop.example/ok?a=1&amp;paymentId=pay_01TEST"></noscript>',
    );
    const generic = renderCheckoutPage({ ...model, status: 'succeeded', redirect: undefined });
    expect(generic).not.toContain('http-equiv="refresh"');
    expect(generic).not.toContain('Continue to');
  });

  it('shows the merchant initial when there is no logo', () => {
    expect(renderCheckoutPage(model)).toContain('<span class="logo logo-initial" aria-hidden="true">&lt;</span>');
    expect(renderCheckoutPage({ ...model, logoUrl: 'https://pay.example/assets/logos/a.png' })).toContain(
      '<img class="logo" src="https://pay.example/assets/logos/a.png" alt="" width="64" height="64">',
    );
  });

  it('renders a plain not-found page', () => {
    const html = renderNotFoundPage(model.assets);
    expect(html).toContain('<h1>Payment not found</h1>');
    expect(html).not.toContain('<script');
  });
});

describe('wallet error messages', () => {
  it('explains each wallet failure with what to do next', () => {
    expect(explainWalletError(new UserRejectedError('eth_signTypedData_v4'))).toMatch(/declined.*nothing was paid/);
    expect(explainWalletError(new UnknownChainError('eip155:8453', 'x'), new Map([['eip155:8453', 'Base']]))).toBe(
      'Your wallet could not switch to the Base network. Add Base to your wallet (or switch to it yourself), then try again.',
    );
    expect(explainWalletError(new WalletProviderError('eth_signTypedData_v4', -32603, 'boom'))).toContain('boom');
    expect(explainWalletError(new GatewayNetworkError('down', { cause: undefined }))).toMatch(/could not reach/);
    expect(
      explainWalletError(new GatewayError({ status: 409, code: 'quote_expired', message: 'Quote expired.' })),
    ).toMatch(/fresh quote/);
    expect(
      explainWalletError(
        new GatewayError({ status: 403, code: 'merchant_not_active', message: 'Not taking payments.' }),
      ),
    ).toMatch(/not taking payments at the moment, so nothing was charged/);
    expect(explainWalletError(new Error('?'))).toMatch(/Try again/);
  });
});
