import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.ts';
import { ApiError } from '../http/errors.ts';
import { solanaPayRequestByReference, type SolanaPayRequest } from './solanaPayRequests.ts';

export const TransactionRequestParams = Type.Object({
  reference: Type.String({
    pattern: '^[1-9A-HJ-NP-Za-km-z]{32,44}$',
    description: "The Solana Pay request's reference key, as in its transfer request",
  }),
});

/** The path of a request's Solana Pay transaction request, under the service's `BASE_URL`. */
export function transactionRequestPath(reference: string): string {
  return `/v1/solana-pay/requests/${reference}`;
}

/** The `solana:` link of a transaction request: the URL, percent-encoded, as the specification asks. */
export function transactionRequestLink(baseUrl: string, reference: string): string {
  return `solana:${encodeURIComponent(`${baseUrl.replace(/\/+$/, '')}${transactionRequestPath(reference)}`)}`;
}

/**
 * Solana Pay wallets call from any origin (a web wallet, a phone app's web view): every answer, errors included,
 * may be read cross-origin. Nothing is authenticated by a cookie or a key, so an open CORS policy gives nothing away.
 */
export function openCors(_request: FastifyRequest, reply: FastifyReply, done: () => void): void {
  reply.header('access-control-allow-origin', '*');
  done();
}

export async function solanaPayRequestOf(ctx: AppContext, reference: string): Promise<SolanaPayRequest> {
  const request = await solanaPayRequestByReference(ctx.db, reference);
  if (!request) throw ApiError.notFound(`No Solana Pay request ${reference}.`, 'not_found');
  return request;
}
