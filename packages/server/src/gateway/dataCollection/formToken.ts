import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';

/** What a form link lets its holder do: give buyer data for one payment, for one account or (`*`) every account. */
export interface FormTokenClaims {
  paymentId: string;
  /** A CAIP-10 account, or `*` for the payment as a whole. */
  scope: string;
  /** Unix seconds. */
  expiresAt: number;
}

export type FormTokenCheck =
  | { ok: true; claims: FormTokenClaims }
  | { ok: false; reason: 'invalid_link' | 'link_expired' };

const TOKEN = /^([A-Za-z0-9_-]{10,1000})\.([A-Za-z0-9_-]{43})$/;

/**
 * Signs and checks the token in a data-collection form's URL: `<payload>.<HMAC-SHA256>`, both base64url. The HMAC
 * key is derived from a service secret kept in the database, so every process of the service agrees on it.
 */
export class FormTokenSigner {
  readonly #key: Buffer;

  constructor(serviceSecret: string) {
    this.#key = Buffer.from(hkdfSync('sha256', serviceSecret, 'paygate', 'buyer data form token v1', 32));
  }

  sign(claims: FormTokenClaims): string {
    const payload = Buffer.from(JSON.stringify({ p: claims.paymentId, s: claims.scope, e: claims.expiresAt })).toString(
      'base64url',
    );
    return `${payload}.${this.mac(payload)}`;
  }

  check(token: string, now: Date): FormTokenCheck {
    const match = TOKEN.exec(token);
    if (!match) return { ok: false, reason: 'invalid_link' };
    const [, payload = '', mac = ''] = match;
    if (!timingSafeEqual(Buffer.from(this.mac(payload)), Buffer.from(mac)))
      return { ok: false, reason: 'invalid_link' };
    let decoded: unknown;
    try {
      decoded = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    } catch {
      return { ok: false, reason: 'invalid_link' };
    }
    const { p, s, e } = decoded as { p?: unknown; s?: unknown; e?: unknown };
    if (typeof p !== 'string' || typeof s !== 'string' || typeof e !== 'number')
      return { ok: false, reason: 'invalid_link' };
    if (now.getTime() >= e * 1000) return { ok: false, reason: 'link_expired' };
    return { ok: true, claims: { paymentId: p, scope: s, expiresAt: e } };
  }

  private mac(payload: string): string {
    return createHmac('sha256', this.#key).update(payload).digest('base64url');
  }
}
