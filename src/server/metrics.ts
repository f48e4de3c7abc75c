import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

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
