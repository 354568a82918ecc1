import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface JsonRpcCall {
  id: number;
  method: string;
  params?: unknown[];
}

/**
 * A JSON-RPC endpoint in front of a node that answers `method` (or each of several, or each call a function picks)
 * with `error` itself, as a node without the debug namespace (-32601) or one that no longer keeps a block's state
 * does; every other call goes on to the node. Counts the calls it answered so, and keeps every call it was sent.
 */
export async function nodeFailing(
  method: string | string[] | ((call: JsonRpcCall) => boolean),
  upstream: string,
  error: { code: number; message: string },
) {
  const methods = new Set(Array.isArray(method) ? method : [method]);
  const fails = typeof method === 'function' ? method : (call: JsonRpcCall) => methods.has(call.method);
  const sent: JsonRpcCall[] = [];
  let refused = 0;
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', async () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as JsonRpcCall | JsonRpcCall[];
      const calls = Array.isArray(body) ? body : [body];
      sent.push(...calls);
      const failing = new Set(calls.filter(fails));
      const passed = calls.filter((call) => !failing.has(call));
      const answers = passed.length
        ? ((await (
            await fetch(upstream, {
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body: JSON.stringify(passed),
            })
          ).json()) as { id: number }[])
        : [];
      const replies = calls.map((call) => {
        if (!failing.has(call)) return answers.find((answer) => answer.id === call.id);
        refused += 1;
        return { jsonrpc: '2.0', id: call.id, error };
      });
      response.setHeader('content-type', 'application/json');
      response.end(JSON.stringify(Array.isArray(body) ? replies : replies[0]));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    refused: () => refused,
    calls: () => sent,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
