import type { FastifyReply } from 'fastify';
import type { WebAsset } from '@paygate/web/hashedAsset';
import { acceptedEncoding } from './compressedReply.ts';

/** An asset under its content-hashed name: cached for good, compressed where the browser takes it. */
export function sendHashedAsset(
  asset: WebAsset,
  acceptEncoding: string | undefined,
  reply: FastifyReply,
): FastifyReply {
  reply.header('cache-control', 'public, max-age=31536000, immutable').type(asset.contentType);
  if (!asset.compressed) return reply.send(asset.body);
  reply.header('vary', 'accept-encoding');
  const encoding = acceptedEncoding(acceptEncoding);
  if (!encoding) return reply.send(asset.body);
  return reply.header('content-encoding', encoding).send(asset.compressed[encoding]);
}
