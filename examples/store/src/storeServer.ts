import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createCheckoutHandler, nodeListener } from '@paygate/checkout/server';
import { createPaygateClient } from '@paygate/client';
import { buildStoreAssets } from './assets.ts';
import { CartBook } from './carts.ts';
import { type Product, productOf, STORE_CURRENCY } from './catalogue.ts';
import { checkoutPage, messagePage, productPage } from './pages.ts';
import { storeMerchantId } from './storeMerchant.ts';

export interface StoreOptions {
  /** paygate's API, e.g. `http://127.0.0.1:8080`. */
  paygateUrl: string;
  /** The partner's API key: used here and by the checkout route, never sent to a page. */
  apiKey: string;
  /** The merchant the store sells as; without it the store makes its own (see `storeMerchantId`). */
  merchantId?: string | undefined;
  port: number;
  host: string;
}

export interface RunningStore {
  url: string;
  merchantId: string;
  close(): Promise<void>;
}

const CHECKOUT_ROUTE = '/api/checkout';
/** The buy form sends one product id. */
const MAX_FORM_BYTES = 1024;

function contentSecurityPolicy(frameOrigin?: string): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    // Wallets' icons are data URIs; the runtime shows no other image.
    "img-src 'self' data:",
    "connect-src 'self'",
    // paygate's own form for buyer details, when a payment asks for them.
    `frame-src ${frameOrigin ?? "'none'"}`,
    "form-action 'self'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

function sendPage(response: ServerResponse, status: number, html: string, frameOrigin?: string): void {
  response.writeHead(status, {
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-store',
    'content-security-policy': contentSecurityPolicy(frameOrigin),
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'same-origin',
  });
  response.end(html);
}

function sendAsset(response: ServerResponse, contentType: string, body: string): void {
  response.writeHead(200, {
    'content-type': contentType,
    'cache-control': 'no-cache',
    'x-content-type-options': 'nosniff',
  });
  response.end(body);
}

function redirect(response: ServerResponse, location: string, cookie?: string): void {
  response.writeHead(303, { location, ...(cookie ? { 'set-cookie': cookie } : {}) });
  response.end();
}

/** A form posted from another site is refused: it would start payments in the visitor's name. */
function isFromThisSite(request: IncomingMessage): boolean {
  const origin = request.headers.origin;
  if (origin === undefined) return true;
  try {
    return new URL(origin).host === request.headers.host;
  } catch {
    return false;
  }
}

async function formOf(request: IncomingMessage): Promise<URLSearchParams | undefined> {
  let body = '';
  for await (const chunk of request) {
    body += chunk;
    if (body.length > MAX_FORM_BYTES) return undefined;
  }
  return new URLSearchParams(body);
}

/**
 * The store: its products at `/`, `POST /buy` makes a paygate payment for one and keeps it in the visitor's cart,
 * `/checkout` is the store's own checkout page, and `/api/checkout` the route its script pays through, which adds
 * the key and lets a visitor act on their own cart's payment only.
 */
export async function startStore(options: StoreOptions): Promise<RunningStore> {
  const paygate = createPaygateClient({ baseUrl: options.paygateUrl, apiKey: options.apiKey });
  const [merchantId, assets] = await Promise.all([storeMerchantId(paygate, options.merchantId), buildStoreAssets()]);
  const carts = new CartBook();
  const checkoutRoute = nodeListener(
    createCheckoutHandler({
      baseUrl: options.paygateUrl,
      apiKey: options.apiKey,
      basePath: CHECKOUT_ROUTE,
      authorize: (paymentId, request) => carts.cartOf(request.headers.get('cookie'))?.paymentId === paymentId,
    }),
  );

  /** The payment for one product; the reason it could not be made is for the store's log, not the shopper. */
  async function newPayment(product: Product): Promise<{ paymentId: string; gatewayUrl: string } | undefined> {
    try {
      const { data, error } = await paygate.POST('/v1/payments', {
        params: { header: { 'merchant-id': merchantId } },
        body: {
          amount: { unit: `iso4217/${STORE_CURRENCY}`, value: product.price.toString() },
          referenceId: `order-${randomUUID()}`,
        },
      });
      if (error) console.error(`paygate refused the payment: ${error.code}: ${error.message}`);
      return data;
    } catch (error) {
      console.error('paygate did not answer:', error);
      return undefined;
    }
  }

  async function buy(request: IncomingMessage, response: ServerResponse): Promise<void> {
    if (!isFromThisSite(request)) {
      sendPage(response, 403, messagePage('Not from this shop', 'Buy from the shop’s own page.'));
      return;
    }
    const form = await formOf(request);
    const product = productOf(form?.get('product') ?? '');
    if (!product) {
      sendPage(response, 404, messagePage('Product not found', 'The shop does not sell this product.'));
      return;
    }
    const payment = await newPayment(product);
    if (!payment) {
      sendPage(response, 502, messagePage('The payment could not start', 'Try again in a moment.'));
      return;
    }
    const { paymentId, gatewayUrl } = payment;
    const cookie = carts.save(request.headers.cookie, { productId: product.id, paymentId, gatewayUrl });
    redirect(response, '/checkout', cookie);
  }

  function showCheckout(request: IncomingMessage, response: ServerResponse): void {
    const cart = carts.cartOf(request.headers.cookie);
    const product = cart && productOf(cart.productId);
    if (!cart || !product) {
      redirect(response, '/');
      return;
    }
    sendPage(response, 200, checkoutPage(cart, product), new URL(cart.gatewayUrl).origin);
  }

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const { pathname } = new URL(request.url ?? '/', 'http://store');
    if (pathname.startsWith(`${CHECKOUT_ROUTE}/`)) {
      await checkoutRoute(request, response);
      return;
    }
    switch (`${request.method} ${pathname}`) {
      case 'GET /':
        return sendPage(response, 200, productPage());
      case 'POST /buy':
        return buy(request, response);
      case 'GET /checkout':
        return showCheckout(request, response);
      case 'GET /assets/checkout.js':
        return sendAsset(response, 'text/javascript; charset=utf-8', assets.checkoutScript);
      case 'GET /assets/store.css':
        return sendAsset(response, 'text/css; charset=utf-8', assets.stylesheet);
      case 'GET /assets/favicon.svg':
        return sendAsset(response, 'image/svg+xml', assets.favicon);
      default:
        return sendPage(response, 404, messagePage('Page not found', 'There is nothing at this address.'));
    }
  }

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      console.error(error);
      if (response.headersSent) response.destroy();
      else sendPage(response, 500, messagePage('Something went wrong', 'Try again in a moment.'));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${options.host}:${port}`,
    merchantId,
    close: () =>
      new Promise<void>((resolve) => {
        // The checkout route holds long-polls open; they end with the store.
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
