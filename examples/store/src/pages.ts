import { CURRENCY_DECIMALS, PRODUCTS, type Product, STORE_CURRENCY, STORE_NAME } from './catalogue.ts';
import type { Cart } from './carts.ts';
import { fiatText } from './money.ts';

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => ESCAPES[character]!);
}

function priceText(product: Product): string {
  return fiatText(product.price.toString(), STORE_CURRENCY, CURRENCY_DECIMALS);
}

/** A tea tin in the product's colour, drawn inline so the page loads no images. */
function tinPicture(product: Product): string {
  return `<svg class="tin" viewBox="0 0 64 80" aria-hidden="true" focusable="false">
<rect x="10" y="14" width="44" height="62" rx="6" fill="${product.tin}"/>
<rect x="7" y="6" width="50" height="12" rx="4" fill="#b4693e"/>
<rect x="18" y="34" width="28" height="22" rx="3" fill="#f7f0e4"/>
<path d="M26 49c2-7 8-10 12-10-1 6-5 10-12 10z" fill="${product.tin}"/>
</svg>`;
}

function layout(title: string, main: string, script?: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<link rel="icon" href="/assets/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/assets/store.css">
${script ? `<script type="module" src="${script}"></script>` : ''}
</head>
<body>
<a class="skip-link" href="#main">Skip to content</a>
<header class="masthead">
<a class="brand" href="/"><span class="brand-mark" aria-hidden="true"></span>${escapeHtml(STORE_NAME)}</a>
<p class="tagline">Loose-leaf tea, paid in stablecoins</p>
</header>
<main id="main" tabindex="-1">
${main}
</main>
<footer class="footer"><p>A reference store on paygate. Payments here are on a local devnet: no real money moves.</p></footer>
</body>
</html>
`;
}

export function productPage(): string {
  const cards = PRODUCTS.map(
    (product) => `<li class="product">
${tinPicture(product)}
<h2>${escapeHtml(product.name)}</h2>
<p class="description">${escapeHtml(product.description)}</p>
<p class="price">${priceText(product)}</p>
<form method="post" action="/buy">
<input type="hidden" name="product" value="${escapeHtml(product.id)}">
<button type="submit" class="button">Buy<span class="visually-hidden"> ${escapeHtml(product.name)}</span></button>
</form>
</li>`,
  ).join('\n');
  return layout(STORE_NAME, `<h1>Our teas</h1>\n<ul class="products">\n${cards}\n</ul>`);
}

/**
 * The store's checkout: the order from the store's catalogue, and a panel the script fills from the payment as
 * paygate shows it. The payment id is all the page holds; the route at /api/checkout adds the key.
 */
export function checkoutPage(cart: Cart, product: Product): string {
  return layout(
    `Checkout · ${STORE_NAME}`,
    `<div class="checkout">
<section class="order" aria-labelledby="order-heading">
<h1 id="order-heading">Checkout</h1>
<div class="order-line">
${tinPicture(product)}
<div><p class="order-name">${escapeHtml(product.name)}</p><p class="description">${escapeHtml(product.description)}</p></div>
<p class="order-price">${priceText(product)}</p>
</div>
<p class="order-note">Pay from a browser wallet, in USDC or another token the shop accepts, on an EVM chain or
Solana.</p>
<p><a href="/">Continue shopping</a></p>
</section>
<section class="pay" aria-labelledby="pay-heading">
<h2 id="pay-heading">Payment</h2>
<div id="checkout" data-payment-id="${escapeHtml(cart.paymentId)}" data-product-id="${escapeHtml(product.id)}"
 data-gateway-url="${escapeHtml(cart.gatewayUrl)}">
<p class="stage">Loading the payment…</p>
<noscript><p>This checkout needs JavaScript. <a href="${escapeHtml(cart.gatewayUrl)}">Pay on paygate's page</a>
instead.</p></noscript>
</div>
</section>
</div>`,
    '/assets/checkout.js',
  );
}

/** A page that says what went wrong, with the way back. */
export function messagePage(title: string, text: string): string {
  return layout(
    `${title} · ${STORE_NAME}`,
    `<h1>${escapeHtml(title)}</h1>\n<p>${escapeHtml(text)}</p>\n<p><a href="/">Back to the shop</a></p>`,
  );
}
