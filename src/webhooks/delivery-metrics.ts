import { Counter, Histogram, type Registry } from 'prom-client';

/** The delivery worker's counters, on the registry the service scrapes. */
export interface DeliveryMetrics {
  attemptsTotal: Counter<'result'>;
  outcomes: Counter<'status'>;
  latency: Histogram;
}

/** Registers the delivery metrics once per worker (prom-client refuses a name twice on one registry). */
export function createDeliveryMetrics(registry: Registry): DeliveryMetrics {
  return {
    attemptsTotal: new Counter({
      name: 'webhook_delivery_attempts_total',
      help: 'Webhook delivery attempts by result (success, http_error, timeout, network_error, refused, interrupted)',
      labelNames: ['result'] as const,
      registers: [registry],
    }),
    outcomes: new Counter({
      name: 'webhook_deliveries_completed_total',
      help: 'Webhook deliveries completed, by final status (delivered, failed)',
      labelNames: ['status'] as const,
      registers: [registry],
    }),
    latency: new Histogram({
      name: 'webhook_delivery_duration_seconds',
      help: 'Time from connecting to the response head of webhook attempts',
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
  };
}
