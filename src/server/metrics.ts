import { Gauge, Registry, collectDefaultMetrics, type Metric } from 'prom-client';

/** Prometheus metrics of the HTTP layer; other modules register theirs on the same registry. */
const LATENCY_BUCKETS = [
  0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
];

/**
 * One route's request counts by status and latency histogram, kept as plain numbers: prom-client's
 * `observe` hashes a label object on every call, a measurable share of a fast request. The
 * registry renders them at scrape time (`http_requests_total`, `http_request_duration_seconds`).
 */
export class RouteStats {
  readonly statuses = new Map<number, number>();
  /** Per-bucket (not cumulative) counts; the last one is +Inf. */
  readonly buckets = new Float64Array(LATENCY_BUCKETS.length + 1);
  sum = 0;
  count = 0;

  constructor(
    readonly route: string,
    readonly method: string,
  ) {}

  observe(status: number, seconds: number): void {
    this.statuses.set(status, (this.statuses.get(status) ?? 0) + 1);
    let i = 0;
    while (i < LATENCY_BUCKETS.length && seconds > LATENCY_BUCKETS[i]) i++;
    this.buckets[i]++;
    this.sum += seconds;
    this.count++;
  }
}

type MetricValue = { labels: Record<string, string | number>; value: number; metricName?: string };

/** A metric prom-client's registry renders from values computed at scrape time. */
function scrapedMetric(name: string, help: string, type: 'counter' | 'histogram', values: () => MetricValue[]): Metric {
  const get = () => ({ name, help, type, values: values(), aggregator: 'sum' as const });
  // The registry only calls get() (and reset() on resetMetrics); it has no public type for such a metric.
  return { name, help, type, get, reset: () => undefined } as unknown as Metric;
}

/** Prometheus metrics of the HTTP layer; other modules register theirs on the same registry. */
export class Metrics {
  readonly registry = new Registry();
  private readonly routes = new Map<string, RouteStats>();

  constructor() {
    collectDefaultMetrics({ register: this.registry });
    const all = () => [...this.routes.values()];
    this.registry.registerMetric(
      scrapedMetric('http_requests_total', 'HTTP requests by route pattern, method and status', 'counter', () =>
        all().flatMap((r) =>
          [...r.statuses].map(([status, n]) => ({ labels: { route: r.route, method: r.method, status }, value: n })),
        ),
      ),
    );
    const name = 'http_request_duration_seconds';
    this.registry.registerMetric(
      scrapedMetric(name, 'HTTP request latency by route pattern and method', 'histogram', () =>
        all().flatMap((r) => {
          const labels = { route: r.route, method: r.method };
          let cumulative = 0;
          const buckets = LATENCY_BUCKETS.map((le, i) => ({
            labels: { le, ...labels },
            value: (cumulative += r.buckets[i]),
            metricName: `${name}_bucket`,
          }));
          return [
            ...buckets,
            { labels: { le: '+Inf', ...labels }, value: r.count, metricName: `${name}_bucket` },
            { labels, value: r.sum, metricName: `${name}_sum` },
            { labels, value: r.count, metricName: `${name}_count` },
          ];
        }),
      ),
    );
  }

  /** Every route's counters. */
  allRoutes(): Iterable<RouteStats> {
    return this.routes.values();
  }

  /** The counters of one route and method (registered once, then updated per request). */
  route(route: string, method: string): RouteStats {
    const key = `${route}\u0000${method}`;
    let r = this.routes.get(key);
    if (!r) {
      r = new RouteStats(route, method);
      this.routes.set(key, r);
    }
    return r;
  }

  /**
   * Per-list gauges read from `status()` at scrape time: entities served, when the data last
   * changed, and whether the last check failed (the previous version stays in service).
   */
  listGauges(
    status: () => Record<
      string,
      { total: number; last_updated: string | null; last_error: string | null; loaded: boolean; stale: boolean }
    >,
  ): void {
    const read = () => Object.entries(status());
    new Gauge({
      name: 'list_entities',
      help: 'Entities of each list in the committed version',
      labelNames: ['list'] as const,
      registers: [this.registry],
      collect() {
        this.reset();
        for (const [list, s] of read()) this.labels(list).set(s.total);
      },
    });
    new Gauge({
      name: 'list_last_updated_seconds',
      help: 'Unix time of the last change of each list (0: never loaded)',
      labelNames: ['list'] as const,
      registers: [this.registry],
      collect() {
        this.reset();
        for (const [list, s] of read()) this.labels(list).set(s.last_updated ? Date.parse(s.last_updated) / 1000 : 0);
      },
    });
    new Gauge({
      name: 'list_stale',
      help: '1 when a list has been failing for longer than its cadence allows (stale in /api/v1/stats), else 0',
      labelNames: ['list'] as const,
      registers: [this.registry],
      collect() {
        this.reset();
        for (const [list, s] of read()) this.labels(list).set(s.stale ? 1 : 0);
      },
    });
    new Gauge({
      name: 'list_last_check_failed',
      help: '1 when the last check of a list failed (see last_error in /api/v1/stats), else 0',
      labelNames: ['list'] as const,
      registers: [this.registry],
      collect() {
        this.reset();
        for (const [list, s] of read()) this.labels(list).set(s.last_error ? 1 : 0);
      },
    });
  }
}

interface RouteSnapshot {
  count: number;
  errors: number;
  buckets: Float64Array;
}

interface LatencyQuantiles {
  p50: number | null;
  p95: number | null;
  p99: number | null;
}

interface RouteRates {
  route: string;
  method: string;
  total: number;
  requests_per_second: number;
  errors: number;
  latency_ms: LatencyQuantiles;
}

export interface WindowSummary {
  window_seconds: number;
  requests_per_second: number;
  errors: number;
  latency_ms: LatencyQuantiles;
  routes: RouteRates[];
}

/**
 * The `q` quantile (seconds) of per-bucket histogram counts, interpolated within its bucket as
 * Prometheus' histogram_quantile does; the last finite bound when it falls in +Inf.
 */
export function histogramQuantile(q: number, buckets: ArrayLike<number>): number | null {
  let total = 0;
  for (let i = 0; i < buckets.length; i++) total += buckets[i];
  if (total === 0) return null;
  const rank = q * total;
  let cumulative = 0;
  for (let i = 0; i < LATENCY_BUCKETS.length; i++) {
    const before = cumulative;
    cumulative += buckets[i];
    if (cumulative >= rank) {
      const lower = i === 0 ? 0 : LATENCY_BUCKETS[i - 1];
      return lower + (LATENCY_BUCKETS[i] - lower) * ((rank - before) / buckets[i]);
    }
  }
  return LATENCY_BUCKETS[LATENCY_BUCKETS.length - 1];
}

const toMs = (q: number, buckets: ArrayLike<number>) => {
  const s = histogramQuantile(q, buckets);
  return s === null ? null : Math.round(s * 1e6) / 1e3;
};

/**
 * Request rate, 5xx answers and latency per route over the last minute (the operator's health
 * page): the routes' counters are copied every `intervalMs`, and a summary compares the live
 * counters with the oldest copy kept.
 */
export class MetricsWindow {
  private readonly snapshots: { at: number; routes: Map<RouteStats, RouteSnapshot> }[] = [];
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly routes: () => Iterable<RouteStats>,
    private readonly opts: { intervalMs: number; keep: number; now: () => number } = {
      intervalMs: 10_000,
      keep: 6,
      now: Date.now,
    },
  ) {
    this.snapshot();
  }

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => this.snapshot(), this.opts.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  private copy(r: RouteStats): RouteSnapshot {
    let errors = 0;
    for (const [status, n] of r.statuses) if (status >= 500) errors += n;
    return { count: r.count, errors, buckets: Float64Array.from(r.buckets) };
  }

  snapshot(): void {
    this.snapshots.push({ at: this.opts.now(), routes: new Map([...this.routes()].map((r) => [r, this.copy(r)])) });
    if (this.snapshots.length > this.opts.keep + 1) this.snapshots.shift();
  }

  summary(): WindowSummary {
    const oldest = this.snapshots[0];
    const seconds = Math.max((this.opts.now() - oldest.at) / 1000, 1e-3);
    const all = new Float64Array(LATENCY_BUCKETS.length + 1);
    let requests = 0;
    let errors = 0;
    const routes: RouteRates[] = [];
    for (const r of this.routes()) {
      if (r.count === 0) continue;
      const now = this.copy(r);
      const then = oldest.routes.get(r);
      const delta = now.buckets.map((v, i) => v - (then?.buckets[i] ?? 0));
      const n = now.count - (then?.count ?? 0);
      const e = now.errors - (then?.errors ?? 0);
      delta.forEach((v, i) => (all[i] += v));
      requests += n;
      errors += e;
      routes.push({
        route: r.route,
        method: r.method,
        total: r.count,
        requests_per_second: n / seconds,
        errors: e,
        latency_ms: { p50: toMs(0.5, delta), p95: toMs(0.95, delta), p99: toMs(0.99, delta) },
      });
    }
    routes.sort((a, b) => b.requests_per_second - a.requests_per_second || b.total - a.total);
    return {
      window_seconds: Math.round(seconds * 10) / 10,
      requests_per_second: requests / seconds,
      errors,
      latency_ms: { p50: toMs(0.5, all), p95: toMs(0.95, all), p99: toMs(0.99, all) },
      routes,
    };
  }
}
