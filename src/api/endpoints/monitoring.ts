import { customerOf } from './account.js';
import { z } from 'zod';
import { endpoint, type AnyEndpoint } from '../../core/endpoint.js';
import { conflict, notFound, valueError } from '../../core/errors.js';
import type { ScreeningKinds } from '../../core/kinds.js';
import { MonitorValueError, WebhookStateError, WebhookStore, WebhookUrlError } from '../../webhooks/store.js';
import {
  CreatedWebhookEndpoint,
  MonitoredEntityIdInput,
  monitoredEntitySchemas,
  WebhookDeliveriesInput,
  WebhookDeliveryPage,
  WebhookEndpoint,
  WebhookEndpointCreateInput,
  WebhookEndpointIdInput,
  WebhookEndpointUpdateInput,
  WebhookTestResult,
} from '../schemas/webhooks.js';

export interface MonitoringDeps {
  store: WebhookStore;
  kinds: ScreeningKinds;
}

const TAGS = ['monitoring'];

function found<T>(v: T | null, what: string): T {
  if (v === null) throw notFound(`${what} not found`);
  return v;
}

/** Store errors as the API's answers: refused values and URLs are 422 on their field, state conflicts 409. */
async function mapped<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof MonitorValueError) throw valueError(['body', 'value'], err.message, null);
    if (err instanceof WebhookUrlError) throw valueError(['body', 'url'], err.message, null);
    if (err instanceof WebhookStateError) throw conflict(err.message);
    throw err;
  }
}

/**
 * The customer's monitoring configuration under `/account`: monitored values and webhook
 * endpoints (secrets shown once, rotation, test events, delivery log). Events: docs/webhooks.md.
 */
export function monitoringEndpoints(deps: MonitoringDeps): AnyEndpoint[] {
  const { store } = deps;
  const { MonitoredEntity, MonitoredEntityCreateInput } = monitoredEntitySchemas(deps.kinds);
  return [
    endpoint({
      id: 'account.monitors.list',
      method: 'GET',
      path: '/account/monitored-entities',
      tags: TAGS,
      summary: 'The customer’s monitored values',
      access: 'account',
      input: z.object({}).strict(),
      output: z.array(MonitoredEntity),
      handler: (_input, ctx) => store.listMonitors(customerOf(ctx.caller)),
    }),
    endpoint({
      id: 'account.monitors.create',
      method: 'POST',
      path: '/account/monitored-entities',
      tags: TAGS,
      summary: 'Monitor a value: webhook events when it is listed, delisted or relisted',
      description:
        'A value matches a listing change exactly when screening it would match the changed entity (same normalization; subdomains, e-mail domains, regions and fuzzy government IDs included). An ENS name is matched through its current resolution.',
      access: 'account',
      input: MonitoredEntityCreateInput,
      output: MonitoredEntity,
      handler: (input, ctx) => mapped(() => store.createMonitor(customerOf(ctx.caller), input)),
    }),
    endpoint({
      id: 'account.monitors.delete',
      method: 'DELETE',
      path: '/account/monitored-entities/{monitored_entity_id}',
      tags: TAGS,
      summary: 'Stop monitoring a value',
      description: 'Events already queued are still delivered, with `monitored_entity.id` null.',
      access: 'account',
      errors: [404],
      input: MonitoredEntityIdInput,
      output: MonitoredEntity,
      handler: async (input, ctx) =>
        found(await store.deleteMonitor(customerOf(ctx.caller), input.monitored_entity_id), 'Monitored entity'),
    }),
    endpoint({
      id: 'account.webhooks.list',
      method: 'GET',
      path: '/account/webhooks',
      tags: TAGS,
      summary: 'The customer’s webhook endpoints',
      access: 'account',
      input: z.object({}).strict(),
      output: z.array(WebhookEndpoint),
      handler: (_input, ctx) => store.listEndpoints(customerOf(ctx.caller)),
    }),
    endpoint({
      id: 'account.webhooks.create',
      method: 'POST',
      path: '/account/webhooks',
      tags: TAGS,
      summary: 'Add a webhook endpoint (its signing secret is shown once)',
      description: 'The URL must use HTTPS and resolve to public addresses only.',
      access: 'account',
      input: WebhookEndpointCreateInput,
      output: CreatedWebhookEndpoint,
      handler: (input, ctx) => mapped(() => store.createEndpoint(customerOf(ctx.caller), input)),
    }),
    endpoint({
      id: 'account.webhooks.update',
      method: 'POST',
      path: '/account/webhooks/{endpoint_id}',
      tags: TAGS,
      summary: 'Change a webhook endpoint’s URL or enable/disable it',
      description: 'A disabled endpoint receives no new events; its pending deliveries wait until it is enabled again.',
      access: 'account',
      errors: [404],
      input: WebhookEndpointUpdateInput,
      output: WebhookEndpoint,
      handler: async (input, ctx) =>
        found(
          await mapped(() =>
            store.updateEndpoint(customerOf(ctx.caller), input.endpoint_id, { url: input.url, enabled: input.enabled }),
          ),
          'Webhook endpoint',
        ),
    }),
    endpoint({
      id: 'account.webhooks.delete',
      method: 'DELETE',
      path: '/account/webhooks/{endpoint_id}',
      tags: TAGS,
      summary: 'Delete a webhook endpoint with its pending deliveries and log',
      access: 'account',
      errors: [404],
      input: WebhookEndpointIdInput,
      output: WebhookEndpoint,
      handler: async (input, ctx) =>
        found(await store.deleteEndpoint(customerOf(ctx.caller), input.endpoint_id), 'Webhook endpoint'),
    }),
    endpoint({
      id: 'account.webhooks.rotateSecret',
      method: 'POST',
      path: '/account/webhooks/{endpoint_id}/rotate-secret',
      tags: TAGS,
      summary: 'Replace the signing secret (shown once); the old one stops signing at once',
      access: 'account',
      errors: [404],
      input: WebhookEndpointIdInput,
      output: CreatedWebhookEndpoint,
      handler: async (input, ctx) =>
        found(await store.rotateSecret(customerOf(ctx.caller), input.endpoint_id), 'Webhook endpoint'),
    }),
    endpoint({
      id: 'account.webhooks.test',
      method: 'POST',
      path: '/account/webhooks/{endpoint_id}/test',
      tags: TAGS,
      summary: 'Send a test event (`type` `test`) to the endpoint',
      description:
        'Queued and delivered like any event (signed, retried, logged); follow `delivery_id` in the delivery log.',
      access: 'account',
      errors: [404, 409],
      input: WebhookEndpointIdInput,
      output: WebhookTestResult,
      handler: async (input, ctx) =>
        found(await mapped(() => store.sendTest(customerOf(ctx.caller), input.endpoint_id)), 'Webhook endpoint'),
    }),
    endpoint({
      id: 'account.webhooks.deliveries',
      method: 'GET',
      path: '/account/webhooks/{endpoint_id}/deliveries',
      tags: TAGS,
      summary: 'Delivery log of an endpoint, newest first: attempts, status codes, latency, errors',
      access: 'account',
      errors: [404],
      input: WebhookDeliveriesInput,
      output: WebhookDeliveryPage,
      handler: async (input, ctx) => {
        const page = { status: input.status, limit: input.limit, offset: input.offset };
        const res = found(await store.deliveries(customerOf(ctx.caller), input.endpoint_id, page), 'Webhook endpoint');
        return { total: res.total, limit: input.limit, offset: input.offset, items: res.items };
      },
    }),
  ];
}
