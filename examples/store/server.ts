import { STORE_NAME } from './src/catalogue.ts';
import { startStore } from './src/storeServer.ts';

const { PAYGATE_URL = 'http://127.0.0.1:8080', PAYGATE_API_KEY, PAYGATE_MERCHANT_ID, PORT = '4000' } = process.env;

function stop(message: string): never {
  console.error(message);
  process.exit(1);
}

if (!PAYGATE_API_KEY) stop('Set PAYGATE_API_KEY to a paygate API key (npm start prints a demo one on a new database).');
const port = Number(PORT);
if (!Number.isInteger(port) || port < 0 || port > 65535) stop(`PORT must be a port number, not ${PORT}.`);

const store = await startStore({
  paygateUrl: PAYGATE_URL,
  apiKey: PAYGATE_API_KEY,
  merchantId: PAYGATE_MERCHANT_ID || undefined,
  port,
  host: process.env.HOST || '127.0.0.1',
}).catch((error: unknown) =>
  stop(`${STORE_NAME} could not open against paygate at ${PAYGATE_URL}: ${(error as Error).message}`),
);
console.log(`${STORE_NAME} is open at ${store.url} (paygate at ${PAYGATE_URL}, merchant ${store.merchantId})`);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void store.close().then(() => process.exit(0));
  });
}
