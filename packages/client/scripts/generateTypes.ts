import openapiTS, { astToString, COMMENT_HEADER, type OpenAPI3 } from 'openapi-typescript';

/** The generated files, by path relative to the package, and what each holds. */
export const GENERATED_FILES = {
  types: 'src/generated/openapi.ts',
  idempotentOperations: 'src/generated/idempotentOperations.ts',
} as const;

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  description?: string;
}
type Operations = Record<string, Record<string, { parameters?: Parameter[] }>>;

const IDEMPOTENCY_KEY = 'idempotency-key';

function isIdempotencyKey(parameter: Parameter): boolean {
  return parameter.in === 'header' && parameter.name.toLowerCase() === IDEMPOTENCY_KEY;
}

/**
 * The document as the client presents it: the client sends an idempotency key of its own on every operation that
 * takes one, so callers may leave the header out even where the service requires it.
 */
function withClientSuppliedIdempotencyKeys(document: Record<string, unknown>): Record<string, unknown> {
  const copy = structuredClone(document);
  for (const operations of Object.values((copy.paths ?? {}) as Operations)) {
    for (const operation of Object.values(operations)) {
      for (const parameter of operation.parameters ?? []) {
        if (!isIdempotencyKey(parameter)) continue;
        parameter.required = false;
        parameter.description =
          'Sent by the client when left out: one new key per call, the same on every retry of that call. Pass your ' +
          "own (e.g. derived from your order's id) to make retries after a restart of your process safe too.";
      }
    }
  }
  return copy;
}

/** `METHOD /path/{template}` of every operation that takes an `Idempotency-Key` header. */
export function idempotentOperations(document: Record<string, unknown>): string[] {
  const found: string[] = [];
  for (const [path, operations] of Object.entries((document.paths ?? {}) as Operations)) {
    for (const [method, operation] of Object.entries(operations)) {
      if (operation.parameters?.some(isIdempotencyKey)) found.push(`${method.toUpperCase()} ${path}`);
    }
  }
  return found.sort();
}

/** The text of every generated file for an OpenAPI document, by path relative to the package. */
export async function generateFiles(document: Record<string, unknown>): Promise<Record<string, string>> {
  const ast = await openapiTS(withClientSuppliedIdempotencyKeys(document) as unknown as OpenAPI3);
  const operations = idempotentOperations(document)
    .map((operation) => `  '${operation}',\n`)
    .join('');
  return {
    [GENERATED_FILES.types]: `${COMMENT_HEADER}${astToString(ast)}`,
    [GENERATED_FILES.idempotentOperations]:
      "// Generated from the service's OpenAPI document by `npm run generate -w @paygate/client`; do not edit.\n\n" +
      '/** The operations that take an Idempotency-Key header: the client sends one and may retry them. */\n' +
      `export const IDEMPOTENT_OPERATIONS: readonly string[] = [\n${operations}];\n`,
  };
}
