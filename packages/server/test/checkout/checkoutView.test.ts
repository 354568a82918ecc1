import { describe, expect, it } from 'vitest';
import { renderCheckoutPage, renderNotFoundPage, type CheckoutPageModel } from '../../src/checkout/checkoutPage.ts';
import { escapeHtml } from '../../src/checkout/html.ts';
import { formatMinorUnits } from '@paygate/client/money';
import { checkoutContentSecurityPolicy, checkoutPathPrefix } from '../../src/checkout/checkoutPolicy.ts';
import {
  formatFiatAmount,
  preferredOptionIndex,
  redirectFor,
  redirectTargets,
  refreshSecondsFor,
} from '../../src/checkout/checkoutView.ts';
import {
  formatTimeLeft,
  formatTokenAmount,
  paidWithParts,
  readableTokenDecimal,
  transactionUrl,
} from '@paygate/web/checkout/view.ts';
import { MAINNET_NETWORKS } from '../../src/chains/mainnets.ts';
import { explainWalletProblem } from '@paygate/web/checkout/walletMessages.ts';
import { translator } from '@paygate/web/checkout/i18n/translator.ts';
import { fiatCurrency } from '../../src/payments/currencies.ts';

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

  it('formats token amounts with their symbol, dropping trailing zeros, and says what was paid on which network', () => {
    expect(formatTokenAmount('10000000', { assetSymbol: 'USDC', decimals: 6 }, 'en')).toBe('10 USDC');
    const paid = { value: '10500000', display: { assetSymbol: 'USDC', decimals: 6, networkName: 'Base' } };
    // The amount as the caller wraps it, to keep it on one line.
    const figure = (text: string) => `[${text}]`;
    expect(paidWithParts(translator('en'), paid, 'en', figure).join('')).toBe('Paid with [10.5 USDC] on Base.');
    expect(paidWithParts(translator('de'), paid, 'de', figure).join('')).toBe('Bezahlt mit [10,5 USDC] auf Base.');
    const unnamed = { ...paid, display: { assetSymbol: 'USDC', decimals: 6 } };
    expect(paidWithParts(translator('en'), unnamed, 'en', figure)).toEqual(['Paid with ', '[10.5 USDC]', '.']);
    expect(formatTokenAmount('9199633', { assetSymbol: 'EURC', decimals: 6 }, 'de-DE')).toBe('9,199633 EURC');
    expect(formatTokenAmount('1', { assetSymbol: 'ETH', decimals: 18 }, 'en')).toBe('0.000000000000000001 ETH');
  });

  it('shows 18-decimal amounts with at most 6 significant decimals, rounding up, never to 0', () => {
    // 10 USD at 3,000 USD per ETH, as priced (rounded up to the wei).
    expect(readableTokenDecimal(3333333333333334n, 18)).toBe('0.00333334');
    expect(formatTokenAmount('3333333333333334', { assetSymbol: 'ETH', decimals: 18 }, 'en')).toBe('0.00333334 ETH');
    expect(readableTokenDecimal(1_234_567_890_123_456_789n, 18)).toBe('1.234568');
    expect(readableTokenDecimal(1_234_567_000_000_000_001n, 18)).toBe('1.234568');
    expect(readableTokenDecimal(1_500_000_000_000_000_000n, 18)).toBe('1.500000');
    expect(formatTokenAmount('1500000000000000000', { assetSymbol: 'ETH', decimals: 18 }, 'de-DE')).toBe('1,5 ETH');
    expect(readableTokenDecimal(999_999_999_999_999_999n, 18)).toBe('1.000000');
    expect(readableTokenDecimal(1n, 18)).toBe('0.000000000000000001');
    expect(readableTokenDecimal(12_345_678_901n, 18)).toBe('0.0000000123457');
    expect(readableTokenDecimal(0n, 18)).toBe('0.000000000000000000');
  });

  it('keeps amounts that fit in 6 significant decimals exact', () => {
    expect(readableTokenDecimal(9_199_633n, 6)).toBe('9.199633');
    expect(readableTokenDecimal(1n, 6)).toBe('0.000001');
    expect(readableTokenDecimal(123_456_000n, 9)).toBe('0.123456');
    expect(readableTokenDecimal(123_456_789n, 9)).toBe('0.123457');
    expect(readableTokenDecimal(1_123_456_789n, 9)).toBe('1.123457');
    expect(readableTokenDecimal(42n, 0)).toBe('42');
  });

  it('never shows less than the exact amount, nor rounds a non-zero amount to 0', () => {
    for (let exponent = 0; exponent <= 22; exponent++) {
      for (const digits of [1n, 7n, 3333333n, 9999999n]) {
        const minor = digits * 10n ** BigInt(exponent) + BigInt(exponent % 3);
        const shown = readableTokenDecimal(minor, 18);
        const [whole = '0', fraction = ''] = shown.split('.');
        const shownMinor = BigInt(whole) * 10n ** 18n + BigInt(fraction.padEnd(18, '0'));
        expect(shownMinor).toBeGreaterThanOrEqual(minor);
        expect(shownMinor).toBeGreaterThan(0n);
        // Rounding changes at most one unit of the last digit shown.
        expect(shownMinor - minor).toBeLessThan(10n ** BigInt(18 - fraction.length));
      }
    }
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

describe('preselected payment option', () => {
  const usdcBase = 'eip155:8453/erc20:0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';
  const eurcBase = 'eip155:8453/erc20:0x60a3E35Cc302bFA44Cb288Bc5a4F316Fdb1adb42';
  const usdtBase = 'eip155:8453/erc20:0xfde4C96c8593536E31F229EA8f37b2ADa2699bb2';
  const eurcSolana = 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp/token:HzwqbKZw8HxMN6bF2yFZNrht3c2iXXzpKcFu7uBEDKtr';

  it("prefers a stablecoin of the payment's own currency over a conversion", () => {
    // A EUR payment: EURC pays at par, USDC at a conversion.
    expect(preferredOptionIndex([usdcBase, eurcBase], [eurcBase, eurcSolana])).toBe(1);
    expect(preferredOptionIndex([usdcBase, usdtBase, eurcSolana, eurcBase], [eurcBase, eurcSolana])).toBe(2);
  });

  it('compares EVM contract addresses without regard to case', () => {
    expect(preferredOptionIndex([usdcBase, eurcBase.toLowerCase()], [eurcBase])).toBe(1);
  });

  it('keeps the first option offered when none is in the payment currency, or several are', () => {
    expect(preferredOptionIndex([usdcBase, usdtBase], [eurcBase])).toBe(0);
    expect(preferredOptionIndex([usdcBase, usdtBase], [])).toBe(0);
    expect(preferredOptionIndex([usdcBase, usdtBase], [usdtBase, usdcBase])).toBe(0);
    expect(preferredOptionIndex([], [eurcBase])).toBe(0);
  });
});

describe('transaction links', () => {
  it('builds explorer transaction pages, keeping a query such as the cluster', () => {
    expect(transactionUrl('https://etherscan.io', '0xabc')).toBe('https://etherscan.io/tx/0xabc');
    expect(transactionUrl('https://basescan.org/', '0xabc')).toBe('https://basescan.org/tx/0xabc');
    expect(transactionUrl('https://explorer.solana.com?cluster=devnet', '5sig')).toBe(
      'https://explorer.solana.com/tx/5sig?cluster=devnet',
    );
  });

  it('links nowhere for an explorer URL that is not an http(s) address', () => {
    expect(transactionUrl('javascript:alert(1)', '0xabc')).toBeUndefined();
    expect(transactionUrl('not a url', '0xabc')).toBeUndefined();
  });

  it('names an explorer for every real network preset', () => {
    const explorers = Object.fromEntries(MAINNET_NETWORKS.map((network) => [network.name, network.explorerUrl]));
    expect(explorers).toEqual({
      Ethereum: 'https://etherscan.io',
      Base: 'https://basescan.org',
      'Arbitrum One': 'https://arbiscan.io',
      'OP Mainnet': 'https://optimistic.etherscan.io',
      Polygon: 'https://polygonscan.com',
      'BNB Smart Chain': 'https://bscscan.com',
      Celo: 'https://celoscan.io',
      Monad: 'https://monadscan.com',
      Solana: 'https://solscan.io',
    });
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
      "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    );
    const split = checkoutContentSecurityPolicy({
      baseUrl: 'https://api.example',
      checkoutUrl: 'https://checkout.example',
    });
    expect(split).toContain("connect-src 'self' https://api.example;");
    expect(split).toContain("img-src 'self' https://api.example data:;");
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
    transactionLink: undefined,
    explorerUrls: { 'eip155:8453': 'https://basescan.org' },
    takingPayments: true,
    accepted: [
      {
        asset: 'eip155:8453/erc20:0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
        network: 'eip155:8453',
        namespace: 'eip155',
        networkName: 'Base',
        amount: '10000000',
        amountText: '10 USDC',
        checked: true,
      },
      {
        asset: 'eip155:8453/slip44:60',
        network: 'eip155:8453',
        namespace: 'eip155',
        networkName: 'Base <L2>',
        amount: '3333333333333334',
        amountText: '0.00333334 ETH',
        checked: false,
      },
    ],
    locale: 'en',
    catalogueUrl: '/assets/checkout/messages-en.456.js',
    apiBaseUrl: 'https://pay.example',
    appId: 'app_01CHECKOUT',
    assets: {
      scriptUrl: '/assets/checkout/checkout.abc.js',
      styleUrl: '/assets/checkout/checkout.def.css',
      iconUrl: '/assets/checkout/favicon.123.svg',
    },
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
    expect(html).toContain('data-success-url="https://shop.example/ok?a=1&amp;paymentId=pay_01TEST"');
    expect(renderCheckoutPage({ ...model, redirect: undefined })).not.toContain('data-success-url');
  });

  it('lists the accepted tokens as radio buttons with their amounts, the preselected one checked, names escaped', () => {
    const html = renderCheckoutPage(model);
    const radios = [...html.matchAll(/<input type="radio" name="accepted"[^>]*>/g)].map(([tag]) => tag);
    expect(radios).toEqual([
      '<input type="radio" name="accepted" value="eip155:8453/erc20:0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913" data-network="eip155:8453" data-namespace="eip155" data-network-name="Base" data-amount="10000000" checked>',
      '<input type="radio" name="accepted" value="eip155:8453/slip44:60" data-network="eip155:8453" data-namespace="eip155" data-network-name="Base &lt;L2&gt;" data-amount="3333333333333334">',
    ]);
    // Each radio's name says its network (arrow keys move between networks); the network's name over its chips.
    expect(html).toContain(
      '<span class="option-amount">0.00333334 ETH</span> <span class="option-network visually-hidden">Base &lt;L2&gt;</span>',
    );
    expect(
      [...html.matchAll(/<p class="accepted-network-name" aria-hidden="true">([^<]*)<\/p>/g)].map(([, name]) => name),
    ).toEqual(['Base']);
    expect(html).toContain('<h2 id="heading-requires_action" tabindex="-1">Choose how to pay</h2>');
    expect(html).toContain('<fieldset class="accepted" id="accepted" aria-labelledby="heading-requires_action">');
    const none = renderCheckoutPage({ ...model, accepted: [] });
    expect(none).not.toContain('name="accepted"');
    expect(none).not.toContain('class="divider"');
  });

  it("shows one QR code at a time: the checkout link's folded away beside the tokens, alone without them", () => {
    const html = renderCheckoutPage(model);
    expect(html).toMatch(
      /<details class="other-device">\n<summary>Open this page on another device<\/summary>\n<figure class="qr">\n<svg role="img"><\/svg>/,
    );
    expect(html.split(model.qrSvg)).toHaveLength(2);
    const none = renderCheckoutPage({ ...model, accepted: [] });
    expect(none).toContain('<h2 id="heading-requires_action" tabindex="-1">Scan to pay</h2>\n<figure class="qr">');
    expect(none).not.toContain('<details');
    expect(none.split(model.qrSvg)).toHaveLength(2);
  });

  it('has a dark variant, so the browser draws its controls and canvas to match', () => {
    expect(renderCheckoutPage(model)).toContain('<meta name="color-scheme" content="light dark">');
    expect(renderNotFoundPage(model.assets, 'en')).toContain('<meta name="color-scheme" content="light dark">');
  });

  it('offers no way to pay for a merchant that is not taking payments, and says so', () => {
    const html = renderCheckoutPage({ ...model, takingPayments: false, accepted: [] });
    expect(html).toContain('<h2 id="heading-requires_action" tabindex="-1">Not taking payments</h2>');
    expect(html).toContain('is not taking payments at the moment, so nothing is due now.');
    expect(html).not.toContain('class="qr"');
    expect(html).not.toContain(model.qrSvg);
    expect(html).not.toContain('id="browser-wallet"');
  });

  it('hands the script the explorers, and links the icon', () => {
    const html = renderCheckoutPage(model);
    expect(html).toContain('data-explorer-urls="{&quot;eip155:8453&quot;:&quot;https://basescan.org&quot;}"');
    expect(html).toContain('<link rel="icon" type="image/svg+xml" href="/assets/checkout/favicon.123.svg">');
    expect(renderNotFoundPage(model.assets, 'en')).toContain('<link rel="icon" type="image/svg+xml"');
  });

  it('links the transaction on success when known, beside the way back to the merchant', () => {
    const link = 'https://basescan.org/tx/0xabc';
    const known = renderCheckoutPage({ ...model, status: 'succeeded', transactionLink: link });
    expect(known).toContain(
      `<p class="transaction-link" id="transaction-link"><a href="${link}" rel="noreferrer">View transaction</a></p>`,
    );
    expect(known).toContain('Continue to');
    const unknown = renderCheckoutPage({ ...model, status: 'succeeded', redirect: undefined });
    expect(unknown).toContain('<p class="transaction-link" id="transaction-link" hidden>');
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
    const html = renderNotFoundPage(model.assets, 'en');
    expect(html).toContain('<h1>Payment not found</h1>');
    expect(html).not.toContain('<script');
  });
});

describe('wallet error messages', () => {
  const en = translator('en');

  it('explains each wallet failure with what to do next', () => {
    // The codes the checkout runtime reports, from the wallet SDK's errors and the service's refusals.
    const explain = (code: string, message = '') =>
      explainWalletProblem(en, { code, message, retryable: true }, 'Base');
    expect(explain('user_rejected')).toMatch(/declined.*nothing was paid/);
    expect(explain('unknown_chain')).toBe(
      'Your wallet could not switch to the Base network. Add Base to your wallet (or switch to it yourself), then try again.',
    );
    expect(explain('provider_error', 'The wallet failed eth_signTypedData_v4: boom')).toContain('boom');
    expect(explain('network')).toMatch(/could not reach/);
    expect(explain('quote_expired', 'Quote expired.')).toMatch(/fresh quote/);
    expect(explain('merchant_not_active', 'Not taking payments.')).toMatch(
      /not taking payments at the moment, so nothing was charged/,
    );
    expect(explain('invalid_signature', 'The signature does not match.')).toContain('The signature does not match.');
    expect(explain('unexpected', 'x is undefined')).toMatch(/Try again/);
  });
});
