import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestServer, type TestServer } from '../../server/test/support/testServer.ts';
import { generateFiles, idempotentOperations } from '../scripts/generateTypes.ts';
import { openApiDocument } from '../scripts/openApiDocument.ts';

const packageFile = (file: string) => new URL(`../${file}`, import.meta.url);

let server: TestServer;
let served: Record<string, unknown>;

beforeAll(async () => {
  server = await startTestServer();
  const answer = await call(server, '/openapi.json');
  expect(answer.status).toBe(200);
  served = answer.body;
});

afterAll(async () => {
  await server?.close();
});

describe('the generated API types', () => {
  it('are what the served OpenAPI document generates (else run npm run generate -w @paygate/client)', async () => {
    const generated = await generateFiles(served);
    expect(Object.keys(generated).length).toBe(2);
    for (const [file, text] of Object.entries(generated)) {
      expect(await readFile(packageFile(file), 'utf8'), `${file} is out of date`).toBe(text);
    }
  });

  it('come from the same document as the service serves, built without a server', async () => {
    const { servers: _builtFor, ...built } = await openApiDocument();
    const { servers: _servedFrom, ...live } = served;
    expect(built).toEqual(live);
  });

  it('list every create that takes an idempotency key', () => {
    expect(idempotentOperations(served)).toEqual(
      expect.arrayContaining(['POST /v1/merchants', 'POST /v1/payments', 'POST /v1/refunds']),
    );
    expect(idempotentOperations(served)).not.toContain('POST /v1/webhooks');
  });
});
