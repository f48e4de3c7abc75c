/** Monitoring webhooks: configuration store, change sink, ENS monitor, delivery worker, signatures. */
export { createWebhookSink, MonitorIndex, type WebhookSinkOptions } from './sink.js';
export { createWebhookDelivery, RETRY_SCHEDULE_MS, USER_AGENT, type WebhookDelivery, type WebhookDeliveryOptions } from './delivery.js';
export { createEnsMonitor, ensNameResolver, ENS_RECHECK_SECONDS, type EnsMonitor, type EnsMonitorOptions } from './ens.js';
export { verifyWebhookSignature, signWebhook, SIGNATURE_HEADER } from './signature.js';
export { WebhookStore, MonitorValueError, WebhookStateError, WebhookUrlError, type NameResolver, type WebhookStoreOptions } from './store.js';
export { resolveWebhookTarget, classifyAddress, type UrlPolicy } from './ssrf.js';
export { eventId, type WebhookEvent, MONITORED_ENTITY_TYPES, EVENT_TYPES } from './events.js';
