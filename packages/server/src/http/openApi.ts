import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { App } from '../context.ts';
import type { RouteAuth } from './auth.ts';
import { API_VERSIONS, REFERENCE_VERSION } from './versions.ts';

function securityFor(auth: RouteAuth | undefined) {
  if (!auth) return [];
  if ('device' in auth) return [{ DeviceKey: [] }];
  const keys = [{ ApiKey: [] }, { BearerApiKey: [] }];
  return auth.allowApp ? [...keys, { AppId: [], ClientId: [] }] : keys;
}

interface ObjectSchema {
  properties?: Record<string, { default?: unknown }>;
  required?: string[];
  allOf?: ObjectSchema[];
}

/**
 * A query parameter with a default is declared required so that handlers always see a value (the validator fills
 * the default in); a client need not send it, so the document lists it as optional.
 */
export function withDefaultedParametersOptional<T extends ObjectSchema>(schema: T): T {
  const required = schema.required?.filter((name) => schema.properties?.[name]?.default === undefined);
  return {
    ...schema,
    ...(schema.required ? { required } : {}),
    ...(schema.allOf ? { allOf: schema.allOf.map(withDefaultedParametersOptional) } : {}),
  };
}

/** The OpenAPI document built from the route schemas (served at `/openapi.json` by `http/ops.ts`) and its viewer at `/docs`. */
export async function registerOpenApi(app: App, baseUrl: string): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'paygate API',
        version: REFERENCE_VERSION,
        description: `Payment acceptance API. Known versions (Pay-Version header, alias WCP-Version; answers name the resolved one in both): ${API_VERSIONS.map((v) => v.version).join(', ')}.`,
      },
      servers: [{ url: baseUrl }],
      components: {
        securitySchemes: {
          ApiKey: { type: 'apiKey', in: 'header', name: 'Api-Key' },
          BearerApiKey: { type: 'http', scheme: 'bearer', description: 'The API key as a bearer token.' },
          AppId: { type: 'apiKey', in: 'header', name: 'App-Id' },
          ClientId: { type: 'apiKey', in: 'header', name: 'Client-Id' },
          DeviceKey: {
            type: 'apiKey',
            in: 'header',
            name: 'Device-Key',
            description: "A paired point-of-sale device's key, for the point-of-sale routes only.",
          },
        },
      },
    },
    transform: ({ schema, url, route }) => {
      const auth = route.config?.auth as RouteAuth | undefined;
      const querystring = schema?.querystring as ObjectSchema | undefined;
      return {
        schema: {
          ...schema,
          ...(querystring ? { querystring: withDefaultedParametersOptional(querystring) } : {}),
          security: securityFor(auth),
        } as typeof schema,
        url,
      };
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs', staticCSP: true, uiConfig: { deepLinking: false } });
}
