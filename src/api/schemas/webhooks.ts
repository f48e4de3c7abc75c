import { z } from 'zod';
import { LIST_TYPES } from '../../../engine/model.js';
import { EVENT_TYPES } from '../../webhooks/events.js';
import type { ScreeningKinds } from '../../core/kinds.js';
import { valueProblem } from '../../../engine/normalize/validate.js';

/** Schemas of the monitoring API (`/account/monitored-entities`, `/account/webhooks`) and of the webhook event. */

const dateTime = z.string().meta({ description: 'ISO 8601 date-time, UTC.', examples: ['2025-06-01T08:00:00.000Z'] });
const id = z.number().int().min(1);

/** The monitoring schemas of a table of kinds: a monitored value is of one of its `monitor` types. */
export function monitoredEntitySchemas(kinds: ScreeningKinds) {
  const MonitoredEntityType = z.enum(kinds.monitorTypes).meta({
    id: 'MonitoredEntityType',
    description:
      '`onchain_address` is a crypto address on any chain or an ENS name (a dotted name, re-resolved on a schedule).',
  });

  const MonitoredEntity = z
    .object({
      id,
      entity_type: MonitoredEntityType,
      value: z.string().meta({ description: 'As entered (an ENS name stays a name).' }),
      label: z.string().nullable(),
      resolved_address: z.string().nullable().meta({
        description:
          'ENS names: the address of the last resolution (null while the name has none). Null for other values.',
      }),
      created_at: dateTime,
      last_event: z
        .object({ type: z.enum(EVENT_TYPES), list: z.string().meta({ description: 'List slug.' }), at: dateTime })
        .strict()
        .nullable()
        .meta({
          description:
            'The value’s latest listing change since it was added (the last event sent for it); null while none.',
        }),
    })
    .strict()
    .meta({ id: 'MonitoredEntity' });

  const MonitoredEntityCreateInput = z
    .object({
      entity_type: MonitoredEntityType,
      value: z
        .string()
        .min(1)
        .max(512)
        .meta({
          description: 'The value, in any form screening accepts (the same validator as screening its kind).',
          examples: ['vitalik.eth'],
        }),
      label: z.string().min(1).max(200).optional().meta({ description: 'Your label, repeated in events.' }),
    })
    .strict()
    .superRefine((input, ctx) => {
      const problem = valueProblem(kinds.monitored(input.entity_type)!.rule, input.value);
      if (problem !== null) ctx.addIssue({ code: 'custom', path: ['value'], message: problem, input: input.value });
    });

  return { MonitoredEntity, MonitoredEntityCreateInput };
}

export const MonitoredEntityIdInput = z.object({ monitored_entity_id: id }).strict();

export const WebhookEndpoint = z
  .object({
    id,
    url: z.string(),
    enabled: z.boolean(),
    secret_prefix: z.string().meta({ description: 'First characters of the signing secret (`whsec_` and 4 more).' }),
    secret_rotated_at: dateTime,
    created_at: dateTime,
  })
  .strict()
  .meta({ id: 'WebhookEndpoint' });

export const CreatedWebhookEndpoint = WebhookEndpoint.extend({
  secret: z.string().meta({
    description: 'The signing secret, shown only in this answer. Key HMAC-SHA256 with this whole string.',
    examples: ['whsec_Jx1v0bS3cA9yq2Lr8Zt6Wm4Pk7Ne5Hd0Gf2Ua1Ri3Oo'],
  }),
})
  .strict()
  .meta({ id: 'CreatedWebhookEndpoint' });

export const WebhookEndpointCreateInput = z
  .object({
    url: z
      .string()
      .min(1)
      .max(2048)
      .meta({
        description: 'HTTPS URL on the public internet; redirects are not followed.',
        examples: ['https://example.com/hooks/screening'],
      }),
    enabled: z.boolean().default(true),
  })
  .strict();

export const WebhookEndpointUpdateInput = z
  .object({ endpoint_id: id, url: z.string().min(1).max(2048).optional(), enabled: z.boolean().optional() })
  .strict();

export const WebhookEndpointIdInput = z.object({ endpoint_id: id }).strict();

const WebhookListing = z
  .object({
    list: z.string().meta({ description: 'Source list slug (as in `/screen/lists`).' }),
    list_name: z.string(),
    list_type: z
      .enum(LIST_TYPES)
      .meta({ description: 'Only a change on a `sanctions` list is a sanctions status change.' }),
    value: z.string().meta({ description: 'As published on the list (for an ENS name, the listed address).' }),
    source_url: z.string().nullable(),
    metadata: z.record(z.string(), z.unknown()),
  })
  .strict()
  .meta({ id: 'WebhookListing' });

const WebhookEvent = z
  .object({
    id: z.string().meta({
      description: 'Stable across retries; deduplicate on it. Test events: `evt_test_<uuid>`.',
      examples: ['evt_3f9a0c1b2d4e5f60718293a4b5c6d7e8'],
    }),
    type: z.enum(EVENT_TYPES),
    created_at: dateTime.meta({ description: 'When the list change was ingested (ISO 8601, UTC).' }),
    change_id: z.string().nullable().meta({
      description: 'The list change reported, as `change_id` in the changes feed (`/changes`); null for test events.',
    }),
    monitored_entity: z
      .object({
        id: z
          .number()
          .int()
          .nullable()
          .meta({ description: 'Null on test events and once the monitored entity is deleted.' }),
        entity_type: z.string(),
        value: z.string(),
        label: z.string().nullable(),
      })
      .strict(),
    listing: WebhookListing,
  })
  .strict()
  .meta({ id: 'WebhookEvent' });

export const WebhookTestResult = z
  .object({ event: WebhookEvent, delivery_id: id.meta({ description: 'Follow it in the delivery log.' }) })
  .strict()
  .meta({ id: 'WebhookTestResult' });

const DeliveryStatus = z.enum(['pending', 'delivered', 'failed']).meta({ id: 'WebhookDeliveryStatus' });

const WebhookAttempt = z
  .object({
    attempt: z.number().int().min(1),
    started_at: dateTime,
    status_code: z
      .number()
      .int()
      .nullable()
      .meta({ description: 'Null when no response came (timeout, connection error, refused address).' }),
    latency_ms: z.number().int(),
    error: z.string().nullable(),
  })
  .strict()
  .meta({ id: 'WebhookAttempt' });

const WebhookDelivery = z
  .object({
    id,
    event_id: z.string(),
    event_type: z.enum(EVENT_TYPES),
    status: DeliveryStatus,
    attempts: z.number().int().min(0),
    next_attempt_at: dateTime.nullable().meta({ description: 'Pending deliveries: when the next attempt is due.' }),
    last_status_code: z.number().int().nullable(),
    last_error: z.string().nullable(),
    last_latency_ms: z.number().int().nullable(),
    created_at: dateTime,
    completed_at: dateTime.nullable(),
    attempt_log: z.array(WebhookAttempt),
  })
  .strict()
  .meta({ id: 'WebhookDelivery' });

export const WebhookDeliveriesInput = z
  .object({
    endpoint_id: id,
    status: DeliveryStatus.optional(),
    limit: z.number().int().min(1).max(100).default(20),
    offset: z.number().int().min(0).default(0),
  })
  .strict();

export const WebhookDeliveryPage = z
  .object({
    total: z.number().int(),
    limit: z.number().int(),
    offset: z.number().int(),
    items: z.array(WebhookDelivery),
  })
  .strict()
  .meta({ id: 'WebhookDeliveryPage' });
