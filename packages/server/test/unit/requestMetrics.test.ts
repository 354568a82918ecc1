import fc from 'fast-check';
import { Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { RequestDurationHistogram } from '../../src/http/requestMetrics.ts';

const observation = fc.record({
  route: fc.constantFrom('/v1/merchants', '/v1/merchants/:merchantId', 'unmatched'),
  method: fc.constantFrom('GET', 'POST'),
  status: fc.constantFrom(200, 201, 404, 429),
  // Bounds themselves are included: a bucket counts durations up to and including its bound.
  seconds: fc.oneof(fc.double({ min: 0, max: 20, noNaN: true }), fc.constantFrom(0.005, 0.1, 1, 10)),
});

describe('request duration histogram', () => {
  it("exposes exactly what prom-client's own histogram exposes for the same observations", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(observation, { maxLength: 60 }), async (observations) => {
        const ours = new Registry();
        const durations = new RequestDurationHistogram();
        ours.registerMetric(durations as unknown as Histogram);
        const reference = new Registry();
        const histogram = new Histogram({
          name: 'http_request_duration_seconds',
          help: 'HTTP request duration by route and status',
          labelNames: ['method', 'route', 'status'],
          registers: [reference],
        });
        const seriesOf = new Map<string, ReturnType<RequestDurationHistogram['seriesOfRoute']>>();
        for (const { route, method, status, seconds } of observations) {
          if (!seriesOf.has(route)) seriesOf.set(route, durations.seriesOfRoute(route));
          seriesOf.get(route)!(method, status).observe(seconds);
          histogram.labels(method, route, String(status)).observe(seconds);
        }
        const lines = async (registry: Registry) => (await registry.metrics()).split('\n').sort();
        expect(await lines(ours)).toEqual(await lines(reference));
      }),
      { numRuns: 200 },
    );
  });
});
