import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** Prometheus metrics of the HTTP layer; other modules register theirs on the same registry. */
export class Metrics {
  readonly registry = new Registry();
  readonly requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests by route pattern, method and status',
    labelNames: ['route', 'method', 'status'] as const,
    registers: [this.registry],
  });
  readonly latency = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request latency by route pattern and method',
    labelNames: ['route', 'method'] as const,
    buckets: [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry });
  }

  /**
   * Per-list gauges read from `status()` at scrape time: entities served, when the data last
   * changed, and whether the last check failed (the previous version stays in service).
   */
  listGauges(status: () => Record<string, { total: number; last_updated: string | null; last_error: string | null; loaded: boolean }>): void {
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

  /** Label children by route, method and status: prom-client's label lookup costs more than the count itself. */
  private readonly children = new Map<string, { count: { inc(): void }; latency: { observe(v: number): void } }>();

  observe(route: string, method: string, status: number, seconds: number): void {
    const key = `${route}\u0000${method}\u0000${status}`;
    let c = this.children.get(key);
    if (!c) {
      c = { count: this.requests.labels(route, method, String(status)), latency: this.latency.labels(route, method) };
      this.children.set(key, c);
    }
    c.count.inc();
    c.latency.observe(seconds);
  }
}
