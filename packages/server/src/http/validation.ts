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

/**
 * Bodies are validated strictly (a number is never taken for a string); query strings, headers and path
 * parameters arrive as text, so they are coerced to the schema's types.
 */
export function registerValidators(app: FastifyInstance): void {
  const bodyAjv = createAjv({ coerceTypes: false });
  const textAjv = createAjv({ coerceTypes: 'array' });
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
