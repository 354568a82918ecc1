import { Type } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';
import type { App } from '../context.ts';
import { ApiError } from '../http/errors.ts';
import { sendHashedAsset } from '../http/hashedAssetReply.ts';
import { consoleAssets } from './consoleAssets.ts';

/** A console asset by its content-hashed name, cached for good, compressed where the browser takes it. */
export async function sendConsoleAsset(
  file: string,
  acceptEncoding: string | undefined,
  reply: FastifyReply,
): Promise<FastifyReply> {
  const asset = (await consoleAssets()).byName.get(file);
  if (!asset) throw ApiError.notFound('No such asset.');
  return sendHashedAsset(asset, acceptEncoding, reply);
}

/**
 * The dashboard's script, stylesheet and icon under content-hashed names, so they are cached for good; compressed
 * where the browser takes it, so a phone loads the dashboard in a few kilobytes.
 */
export function registerServeDashboardAsset(app: App): void {
  app.get(
    '/dashboard/assets/:file',
    {
      config: { auth: false },
      schema: { hide: true, params: Type.Object({ file: Type.String({ maxLength: 80 }) }) },
    },
    async (request, reply) => sendConsoleAsset(request.params.file, request.headers['accept-encoding'], reply),
  );
}
