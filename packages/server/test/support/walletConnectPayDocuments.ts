import { readFileSync } from 'node:fs';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { CallResult } from './testServer.ts';

/** The API versions whose WalletConnect Pay documents the tests carry (see `test/fixtures/walletconnect-pay/`). */
export const DOCUMENTED_VERSIONS = ['2026-02-18', '2026-02-19.preview'] as const;
export type DocumentedVersion = (typeof DOCUMENTED_VERSIONS)[number];

type Json = Record<string, any>;

/**
 * Where this service's interface says otherwise than WalletConnect Pay's documents, the interface wins (and the
 * README says so): each departure replaces the schema at a place in the document's components, saying why.
 */
const INTERFACE_DEPARTURES: { at: string[]; schema: Json; why: string }[] = [
  {
    at: ['schemas', 'WalletRpcAction', 'properties', 'params'],
    schema: { type: 'string', contentMediaType: 'application/json' },
    why: "the interface's walletRpc action carries `params` as a JSON-encoded string, not an array",
  },
];

/** One operation of a document, named as the document writes it: `GET /v1/payments/{id}`. */
export type OperationName = string;

/** An answer that does not match what the document says of it. */
export interface Mismatch {
  version: DocumentedVersion;
  operation: OperationName;
  status: number;
  problem: string;
}

/**
 * One of WalletConnect Pay's published OpenAPI documents, read as a client written from it would read our answers:
 * the status must be one the operation documents, and the body must match that status's JSON schema.
 */
export class WalletConnectPayDocument {
  readonly operations: Map<OperationName, Json>;
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor(readonly version: DocumentedVersion) {
    const url = new URL(`../fixtures/walletconnect-pay/${version}.json`, import.meta.url);
    const document = withoutDialects(JSON.parse(readFileSync(url, 'utf8')));
    for (const departure of INTERFACE_DEPARTURES) replaceAt(document.components, departure.at, departure.schema);
    addFormats.default(this.ajv);
    this.ajv.addSchema({ $id: 'wcp', components: document.components }, 'wcp');
    this.operations = new Map();
    for (const [path, item] of Object.entries<Json>(document.paths)) {
      for (const [method, operation] of Object.entries<Json>(item)) {
        if (operation?.responses) this.operations.set(`${method.toUpperCase()} ${path}`, operation);
      }
    }
  }

  /** The statuses an operation documents, errors included. */
  statuses(operation: OperationName): number[] {
    return Object.keys(this.operation(operation).responses).map(Number);
  }

  /** What is wrong with `answer` as an answer of `operation` under this document; empty when nothing is. */
  check(operation: OperationName, answer: CallResult): string[] {
    const response = this.operation(operation).responses[String(answer.status)];
    if (!response) return [`status ${answer.status} is not documented: ${answer.text.slice(0, 200)}`];
    const schema = response.content?.['application/json']?.schema;
    if (!schema) return [];
    const validate = this.validator(operation, answer.status, schema);
    if (validate(answer.body)) return [];
    return (validate.errors ?? []).map(
      (error) => `${error.instancePath || '(body)'} ${error.message} ${JSON.stringify(error.params)}`,
    );
  }

  private operation(operation: OperationName): Json {
    const found = this.operations.get(operation);
    if (!found) throw new Error(`${this.version} documents no operation ${operation}`);
    return found;
  }

  private validator(operation: OperationName, status: number, schema: Json): ValidateFunction {
    const key = `${operation} ${status}`;
    let validate = this.compiled.get(key);
    if (!validate) {
      validate = this.ajv.compile(withDocumentRefs(schema));
      this.compiled.set(key, validate);
    }
    return validate;
  }
}

function replaceAt(root: Json, at: string[], schema: Json): void {
  const parent = at.slice(0, -1).reduce((node, key) => node?.[key], root);
  const last = at[at.length - 1]!;
  if (!parent || !(last in parent)) throw new Error(`the document has nothing at ${at.join('/')} to depart from`);
  parent[last] = schema;
}

/** Inline schemas name their own dialect (`$schema`); the whole document is read as JSON Schema 2020-12. */
function withoutDialects(value: any): any {
  if (Array.isArray(value)) return value.map(withoutDialects);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => key !== '$schema')
      .map(([key, inner]) => [key, withoutDialects(inner)]),
  );
}

/** A response schema's `#/components/...` references point into the document registered as `wcp`. */
function withDocumentRefs(value: any): any {
  if (Array.isArray(value)) return value.map(withDocumentRefs);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, inner]) => [
      key,
      key === '$ref' && typeof inner === 'string' && inner.startsWith('#/') ? `wcp${inner}` : withDocumentRefs(inner),
    ]),
  );
}
