import { randomBytes } from 'node:crypto';

/** What a visitor is buying: one product, and the paygate payment made for it. */
export interface Cart {
  productId: string;
  paymentId: string;
  /** paygate's own checkout page for the payment, offered when the store's page cannot run. */
  gatewayUrl: string;
}

const COOKIE_NAME = 'cart';
const CART_ID = /^[A-Za-z0-9_-]{43}$/;
/** Longer than a payment can stay open (24 h at most), so a cart outlives its payment. */
const CART_LIFETIME_MS = 24 * 60 * 60 * 1000;

function cartIdOf(cookieHeader: string | null | undefined): string | undefined {
  for (const pair of (cookieHeader ?? '').split(';')) {
    const [name, value] = pair.trim().split('=');
    if (name === COOKIE_NAME && value && CART_ID.test(value)) return value;
  }
  return undefined;
}

/**
 * The visitors' carts, in memory under a random id the visitor's cookie holds: the cookie names a cart and proves
 * nothing else, so knowing a payment id gives no access to it. A real store keeps carts in its session store.
 */
export class CartBook {
  readonly #carts = new Map<string, { cart: Cart; savedAt: number }>();

  cartOf(cookieHeader: string | null | undefined): Cart | undefined {
    const id = cartIdOf(cookieHeader);
    return id === undefined ? undefined : this.#carts.get(id)?.cart;
  }

  /** Keeps `cart` as the visitor's; returns the `Set-Cookie` header value for a visitor who had no cart yet. */
  save(cookieHeader: string | null | undefined, cart: Cart, now = Date.now()): string | undefined {
    const known = cartIdOf(cookieHeader);
    const id = known !== undefined && this.#carts.has(known) ? known : randomBytes(32).toString('base64url');
    // Re-inserted, so the map stays in order of last save and the stale carts are the first ones.
    this.#carts.delete(id);
    this.#carts.set(id, { cart, savedAt: now });
    for (const [staleId, { savedAt }] of this.#carts) {
      if (now - savedAt < CART_LIFETIME_MS) break;
      this.#carts.delete(staleId);
    }
    return id === known
      ? undefined
      : `${COOKIE_NAME}=${id}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${CART_LIFETIME_MS / 1000}`;
  }
}
