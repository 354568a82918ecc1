import type { FastifySchemaValidationError } from 'fastify/types/schema.js';
import { Ajv, type Options } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifyInstance } from 'fastify';
import { isValidMerchantEmail } from './email.ts';
import type { Issue } from './errors.ts';

function createAjv(options: Options): Ajv {
  const ajv = new Ajv({ allErrors: true, useDefaults: true, removeAdditional: false, strict: false, ...options });
  addFormats.default(ajv);
  ajv.addFormat('merchant-email', { type: 'string', validate: isValidMerchantEmail });
  return ajv;
}

/** The schema with every `additionalProperties: false` left out, so that its objects accept unknown fields. */
function openObjects(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(openObjects);
  if (typeof schema !== 'object' || schema === null) return schema;
  return Object.fromEntries(
    Object.entries(schema)
      .filter(([keyword, value]) => !(keyword === 'additionalProperties' && value === false))
      .map(([keyword, value]) => [keyword, openObjects(value)]),
  );
}

/**
 * Bodies are validated strictly (a number is never taken for a string), but a field the schema does not name is
 * dropped, never refused: clients of the API this one stands in for send fields of their own (the wallet SDKs'
 * `excludeFromRelayer` on confirm). The handler, and the idempotency fingerprint made from the body, see only the
 * named fields. Body schemas are opened before they are compiled and documented, so the OpenAPI document says the
 * same; a map in a body must be a `patternProperties` schema (TypeBox's `Record`), as any other object loses every
 * unnamed key. Query strings, headers and path parameters arrive as text, so they are coerced to the schema's types,
 * and unknown query parameters are still refused.
 */
export function registerValidators(app: FastifyInstance): void {
  const bodyAjv = createAjv({ coerceTypes: false, removeAdditional: 'all' });
  const textAjv = createAjv({ coerceTypes: 'array' });
  app.addHook('onRoute', (route) => {
    if (route.schema?.body) route.schema = { ...route.schema, body: openObjects(route.schema.body) };
  });
  app.setValidatorCompiler(({ schema, httpPart }) => (httpPart === 'body' ? bodyAjv : textAjv).compile(schema));
}

const PART_LABELS: Record<string, string> = { headers: 'header ', querystring: '', params: '', body: '' };

/** One issue per problem, `field` as a dotted path (D18). */
export function validationIssues(errors: FastifySchemaValidationError[], context = 'body'): Issue[] {
  const issues = errors.map((error) => {
    const segments = error.instancePath.split('/').filter(Boolean);
    const params = error.params as Record<string, unknown>;
    let message = error.message ?? 'is not valid';
    if (typeof params.missingProperty === 'string') {
      segments.push(params.missingProperty);
      message = 'is required';
    } else if (typeof params.additionalProperty === 'string') {
      segments.push(params.additionalProperty);
      message = 'is not an accepted field';
    } else if (error.keyword === 'format' && params.format === 'merchant-email') {
      message = 'must be a valid email address';
    } else if (error.keyword === 'enum' && Array.isArray(params.allowedValues)) {
      message = `must be one of: ${params.allowedValues.join(', ')}`;
    }
    const path = segments.join('.');
    const field = path ? `${PART_LABELS[context] ?? ''}${path}` : context;
    return { field, message };
  });
  const seen = new Set<string>();
  return issues.filter((issue) => {
    const key = `${issue.field}\u0000${issue.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
