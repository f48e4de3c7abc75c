import { z } from 'zod';

/** SPEC.md's PepScreenResponse and PepMatch: what every PEP provider answers, and the `/screen/pep` response. */

const PepMatch = z
  .object({
    id: z.string().meta({ description: 'Entity id in the PEP dataset.' }),
    caption: z.string().meta({ description: 'Display name of the entity.' }),
    score: z.number().min(0).max(1),
    match: z.boolean().meta({ description: 'The score reaches the 0.7 decision threshold.' }),
    topics: z
      .array(z.string())
      .default([])
      .meta({ description: 'e.g. `role.pep` (politically exposed person), `role.rca` (relative or close associate).' }),
    countries: z
      .array(z.string())
      .default([])
      .meta({ description: 'ISO 3166-1 alpha-2 codes, lower case as published.' }),
    birth_dates: z.array(z.string()).default([]),
    positions: z.array(z.string()).default([]),
    datasets: z.array(z.string()).default([]),
    source_url: z.string().meta({ description: 'The entity page.' }),
    explanation_text: z
      .string()
      .optional()
      .meta({
        description: 'This service: why the candidate was found, in one plain sentence (a PepMatch has no metadata).',
      }),
    review: z
      .object({ alert_id: z.number().int(), status: z.string(), decided_at: z.string() })
      .strict()
      .optional()
      .meta({ description: "This service, customers only: the decision on the candidate's alert (see MatchReview)." }),
  })
  .strict()
  .meta({ id: 'PepMatch' });

export const PepScreenResponse = z
  .object({
    value: z.string().meta({ description: 'The name screened.' }),
    pep: z.boolean().meta({ description: 'True when any candidate reaches the 0.7 decision threshold.' }),
    dataset: z.string().default('peps'),
    matches: z.array(PepMatch),
  })
  .strict()
  .meta({ id: 'PepScreenResponse' });

export type PepMatchT = z.output<typeof PepMatch>;
export type PepScreenResponseT = z.output<typeof PepScreenResponse>;
