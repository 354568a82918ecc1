import { createHmac, timingSafeEqual } from 'node:crypto';
import { ApiError } from './errors.ts';

/**
 * Opaque, tamper-evident pagination cursors: the position and the query it belongs to, signed with a
 * service secret. A cursor altered, forged, or reused with another query is refused (D9).
 */
export class CursorCodec {
  constructor(private readonly secret: string) {}

  encode(position: unknown, queryFingerprint: string): string {
    const payload = Buffer.from(JSON.stringify({ p: position, q: queryFingerprint })).toString('base64url');
    return `${payload}.${this.sign(payload)}`;
  }

  decode<T>(cursor: string, queryFingerprint: string): T {
    const [payload, signature, extra] = cursor.split('.');
    const invalid = () => new ApiError('invalid_params', 'The cursor is not valid for this query.');
    if (!payload || !signature || extra !== undefined) throw invalid();
    const expected = Buffer.from(this.sign(payload));
    const given = Buffer.from(signature);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) throw invalid();
    let decoded: { p: T; q: string };
    try {
      decoded = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    } catch {
      throw invalid();
    }
    if (decoded.q !== queryFingerprint) throw invalid();
    return decoded.p;
  }

  /**
   * Keyset paging: the page of `rows`, read with a limit of `limit + 1` after the position the previous cursor
   * held, and the cursor of the next page (the last row's position), null when no row follows.
   */
  page<Row>(
    rows: Row[],
    limit: number,
    queryFingerprint: string,
    positionOf: (row: Row) => unknown,
  ): { rows: Row[]; nextCursor: string | null } {
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    const more = rows.length > limit && last !== undefined;
    return { rows: page, nextCursor: more ? this.encode(positionOf(last), queryFingerprint) : null };
  }

  private sign(payload: string): string {
    return createHmac('sha256', this.secret).update(payload).digest('base64url').slice(0, 32);
  }
}
