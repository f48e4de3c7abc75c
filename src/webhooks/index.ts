/** Monitoring webhooks: configuration store, change sink, ENS monitor, delivery worker, signatures. */
export { createWebhookSink } from './sink.js';
export { createWebhookDelivery } from './delivery.js';
export { createEnsMonitor, ensNameResolver } from './ens.js';
export { WebhookStore } from './store.js';
