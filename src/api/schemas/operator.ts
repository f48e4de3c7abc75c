import { z } from 'zod';
import { LIST_TYPES } from '../../../engine/model.js';
import { CADENCES, LIST_KINDS } from '../../../loaders/types.js';

/** Schemas of the operator's endpoints beside customers and plans: session, lists, health. */

const dateTime = z.string().meta({ description: 'ISO 8601 date-time, UTC.' });

export const OperatorSession = z
  .object({
    token: z.string().meta({
      description: 'Send it as `Authorization: Bearer <token>` to /admin endpoints instead of ADMIN_KEY. Shown once.',
      examples: ['op_4fQ9dJ0cXk2LwP7sV1mN8bR3tY6uZ5aE'],
    }),
    expires_at: dateTime,
    expires_in: z.number().int().meta({ description: 'Seconds until it expires (3600).' }),
  })
  .strict()
  .meta({ id: 'OperatorSession' });

export const OperatorSignOut = z
  .object({ revoked: z.literal(true) })
  .strict()
  .meta({ id: 'OperatorSignOut' });

export const ListStatusEntry = z
  .object({
    slug: z.string(),
    display_name: z.string(),
    list_type: z.enum(LIST_TYPES),
    kind: z.enum(LIST_KINDS),
    cadence: z.enum(CADENCES),
    enabled: z.boolean(),
    in_default_set: z.boolean().meta({ description: 'Screened when a request names no lists.' }),
    loaded: z.boolean(),
    version: z.string().nullable().meta({ description: 'Content version of the data in service.' }),
    last_checked: dateTime.nullable().meta({ description: 'Last time the source was checked (successfully or not).' }),
    last_updated: dateTime.nullable().meta({ description: 'Last time the data changed.' }),
    last_error: z
      .string()
      .nullable()
      .meta({ description: 'Why the last check failed; the previous version stays in service.' }),
    total: z.number().int().meta({ description: 'Active entities.' }),
  })
  .strict()
  .meta({ id: 'ListStatusEntry' });

const latency = z
  .object({ p50: z.number().nullable(), p95: z.number().nullable(), p99: z.number().nullable() })
  .strict()
  .meta({ description: 'Milliseconds, from the latency histogram (null without requests).' });

const RouteHealth = z
  .object({
    route: z.string(),
    method: z.string(),
    total: z.number().int().meta({ description: 'Requests since the node started.' }),
    requests_per_second: z.number(),
    errors: z.number().int().meta({ description: '5xx answers in the window.' }),
    latency_ms: latency,
  })
  .strict()
  .meta({ id: 'RouteHealth' });

export const ServiceHealth = z
  .object({
    ready: z
      .boolean()
      .meta({ description: 'What /readyz says: every enabled list loaded or failed once, and served.' }),
    leader: z.boolean().meta({ description: 'This node ingests the lists.' }),
    node: z.string().meta({
      description:
        'This node’s name, the same across its restarts: `NODE_ID`, or the id generated at its first start and kept in DATA_DIR.',
    }),
    uptime_seconds: z.number().int(),
    window_seconds: z
      .number()
      .meta({ description: 'The window of the rates and latencies (the last minute, or since start).' }),
    requests_per_second: z.number(),
    errors: z.number().int(),
    latency_ms: latency,
    routes: z.array(RouteHealth).meta({ description: 'Routes that served requests, busiest first.' }),
  })
  .strict()
  .meta({ id: 'ServiceHealth' });
