import type { FastifyInstance } from 'fastify';
import type { Histogram, Registry } from 'prom-client';
import { appendRouteHook } from './routeHooks.ts';
import { SdkRequestCounter } from './sdkMetrics.ts';

/** prom-client's default buckets, in seconds. */
const UPPER_BOUNDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

type DurationLabels = { method: string; route: string; status: string };

/** One line of the exposition: what prom-client's registry formats. */
interface SampleLine {
  metricName: string;
  labels: Record<string, string | number>;
  value: number;
}

/** One method, route and status: a count per bucket (the last one past every bound), their sum and count. */
class DurationSeries {
  readonly buckets = new Float64Array(UPPER_BOUNDS.length + 1);
  sum = 0;
  count = 0;

  constructor(readonly labels: DurationLabels) {}

  observe(seconds: number): void {
    let bucket = 0;
    while (bucket < UPPER_BOUNDS.length && seconds > (UPPER_BOUNDS[bucket] as number)) bucket++;
    this.buckets[bucket]! += 1;
    this.sum += seconds;
    this.count += 1;
  }
}

/**
 * `http_request_duration_seconds`, a Prometheus histogram served through the prom-client registry. It counts into
 * plain arrays because it is observed on every response: prom-client's own histogram validates and hashes the
 * labels and looks buckets up by string key on each observation, a measurable share of a cached GET's cost.
 */
export class RequestDurationHistogram {
  readonly name = 'http_request_duration_seconds';
  readonly help = 'HTTP request duration by route and status';
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  private readonly series: DurationSeries[] = [];

  /** The series of one route, found by method and status without building a key string. */
  seriesOfRoute(route: string): (method: string, status: number) => DurationSeries {
    const byMethod = new Map<string, Map<number, DurationSeries>>();
    return (method, status) => {
      let byStatus = byMethod.get(method);
      if (!byStatus) {
        byStatus = new Map();
        byMethod.set(method, byStatus);
      }
      let series = byStatus.get(status);
      if (!series) {
        series = new DurationSeries({ method, route, status: String(status) });
        byStatus.set(status, series);
        this.series.push(series);
      }
      return series;
    };
  }

  /** What prom-client's registry asks of every metric when it is scraped. */
  get() {
    const values: SampleLine[] = [];
    for (const series of this.series) {
      let cumulative = 0;
      UPPER_BOUNDS.forEach((bound, index) => {
        cumulative += series.buckets[index] as number;
        values.push({ metricName: `${this.name}_bucket`, labels: { le: bound, ...series.labels }, value: cumulative });
      });
      values.push({ metricName: `${this.name}_bucket`, labels: { le: '+Inf', ...series.labels }, value: series.count });
      values.push({ metricName: `${this.name}_sum`, labels: series.labels, value: series.sum });
      values.push({ metricName: `${this.name}_count`, labels: series.labels, value: series.count });
    }
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }
}

/**
 * Observes every response's duration by method, route and status; unmatched routes count as `unmatched`. Requests
 * that name their SDK are counted by it. Each route
 * gets its own hook holding its series, so a response finds its series without reading the route's options.
 */
export function registerRequestMetrics(app: FastifyInstance, registry: Registry): void {
  const durations = new RequestDurationHistogram();
  // The registry needs only the name and get() of a metric; its types name prom-client's own classes (prom-client
  // is pinned to 15.1.x in package.json for this).
  registry.registerMetric(durations as unknown as Histogram);
  app.addHook('onRoute', (route) => {
    const seriesOf = durations.seriesOfRoute(route.url);
    appendRouteHook(route, 'onResponse', (request, reply, done) => {
      seriesOf(request.method, reply.statusCode).observe(reply.elapsedTime / 1000);
      done();
    });
  });
  const unmatched = durations.seriesOfRoute('unmatched');
  const sdkRequests = new SdkRequestCounter(registry);
  app.addHook('onResponse', (request, reply, done) => {
    if (request.is404) unmatched(request.method, reply.statusCode).observe(reply.elapsedTime / 1000);
    sdkRequests.count(request.headers);
    done();
  });
}
