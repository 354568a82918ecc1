import { Type } from '@sinclair/typebox';
import type { App, AppContext } from '../context.ts';
import { DisplayName, displayNameToStore } from '../http/displayName.ts';
import { errorResponses } from '../http/schemas.ts';
import { createPartner } from '../partners/partners.ts';

const CreatePartnerBody = Type.Object({ name: DisplayName }, { additionalProperties: false });

const CreatedPartner = Type.Object({
  partnerId: Type.String(),
  apiKey: Type.String({ description: 'An API key with every scope, shown this once; only its hash is kept' }),
  appId: Type.String({ description: "The partner's wallet app (a public App-Id)" }),
});

/** Creates a partner as `paygate partner create` does: an all-scope API key, shown once, and a wallet app. */
export function registerCreatePartner(app: App, ctx: AppContext): void {
  app.post(
    '/operator/api/partners',
    {
      schema: {
        tags: ['operator'],
        summary: 'Create a partner',
        body: CreatePartnerBody,
        response: { 201: CreatedPartner, ...errorResponses() },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await createPartner(ctx.db, displayNameToStore(request.body.name, 'name'))),
  );
}
