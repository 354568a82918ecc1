import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { nodeListener } from '../../src/server.ts';

export interface RunningServer {
  url: string;
  close(): Promise<void>;
}

/** A Fetch-API handler on a real socket, mounted as a store's Node server would mount it. */
export async function serveFetchHandler(handler: (request: Request) => Promise<Response>): Promise<RunningServer> {
  const listener = nodeListener(handler);
  const server = createServer((incoming, outgoing) => void listener(incoming, outgoing));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
