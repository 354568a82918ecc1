import Fastify from 'fastify';

/** The baseline: a bare Fastify JSON route, no auth, no database. */
const app = Fastify({ logger: false });
app.get('/bare', async () => ({ merchant: { id: 'mrch_bench', name: 'Bench', status: 'active' } }));
const address = await app.listen({ port: 0, host: '127.0.0.1' });
process.stdout.write(`listening ${address}\n`);
