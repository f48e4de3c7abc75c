import { z } from 'zod';
import { PARTY_TYPES } from '../../../engine/model.js';
import { NAME_THRESHOLD } from '../../../engine/names/index.js';
import { birthDateParam, countryParam, NAME_MAX, partyTypeParam } from '../../core/person.js';
import { asOfParam, listsParam, matchMetadataFields, ScreenMatch, ScreenResponse } from './screen.js';

/** `/screen/name`: parameters, and the ScreenResponse envelope with its matches' metadata documented. */
export const NameScreenInput = z
  .object({
    name: z.string().trim().min(2).max(NAME_MAX).meta({ description: 'Name, in any script.' }),
    party_type: partyTypeParam.default('any'),
    birth_date: birthDateParam.optional(),
    country: countryParam.optional(),
    threshold: z.number().min(0).max(1).default(NAME_THRESHOLD),
    limit: z.number().int().min(1).max(25).default(5),
    // Descriptions stay short: the v2 payment header echoing them must fit in 3.5 KB.
    lists: listsParam.meta({ description: 'Default: the sanctions lists with names.' }),
    as_of: asOfParam,
  })
  .strict();

const effect = (what: string) =>
  z
    .object({
      effect: z.enum(['agrees', 'near', 'conflicts', 'differs', 'excludes', 'not_compared']),
      change: z.number().meta({ description: `What the ${what} did to the score (new score minus the score before).` }),
    })
    .strict();

const MatchExplanation = z
  .object({
    name_score: z.number().min(0).max(1).meta({ description: "The best name's score before any evidence." }),
    birth_date: effect('birth date').meta({
      description:
        '`agrees` (raises the score), `near` (years one apart: no change), `conflicts` (different dates: lowered below the threshold), `not_compared`.',
    }),
    country: effect('country').meta({
      description: '`agrees` (raises the score), `differs` (no change for sanctions), `not_compared`.',
    }),
    party_type: effect('party type').meta({
      description: '`agrees`, `excludes` (another type: the party is left out), `not_compared`.',
    }),
    weak_names_left_out: z.number().int().meta({
      description:
        'Weak or one-token names that scored at or above the threshold but count only when exact and supported by a birth date or country.',
    }),
  })
  .strict()
  .meta({ id: 'MatchExplanation' });

const PartyMatchMetadata = z
  .object({
    id: z.string().meta({
      description:
        'The party: `<list>:<its id at the source>` (OFAC uid, UN reference number, EU logicalId, UK unique id).',
    }),
    caption: z.string().meta({ description: "The party's primary name." }),
    name: z.string().meta({ description: "The primary name (SPEC's `name` key)." }),
    sdn_name: z.string().optional().meta({ description: 'OFAC lists: the SDN name.' }),
    score: z
      .number()
      .min(0)
      .max(1)
      .meta({ description: 'The match score (0..1): the best name, qualified by birth date, country and type.' }),
    party_type: z.enum(PARTY_TYPES).nullable(),
    aliases: z
      .array(
        z
          .object({
            name: z.string(),
            type: z
              .string()
              .meta({ description: 'As the source calls it (`a.k.a.`, `f.k.a.`, `alias`, `original_script`, ...).' }),
            weak: z.boolean().meta({ description: 'Marked weak or low quality by the source.' }),
          })
          .strict(),
      )
      .meta({ description: "The party's other names." }),
    birth_dates: z
      .array(z.string())
      .meta({ description: '`YYYY`, `YYYY-MM`, `YYYY-MM-DD` or a range of years `YYYY/YYYY`.' }),
    countries: z
      .array(z.string())
      .meta({ description: 'Nationalities, citizenships and countries of address, as published.' }),
    identifiers: z
      .array(z.object({ type: z.string().nullable(), value: z.string(), country: z.string().nullable() }).strict())
      .meta({ description: 'Passports, national IDs, registration and IMO numbers.' }),
    programs: z.array(z.string()).meta({ description: 'Sanctions programmes or regimes.' }),
    explanation: MatchExplanation,
    ...matchMetadataFields,
  })
  .catchall(z.unknown())
  .meta({
    id: 'PartyMatchMetadata',
    description: "The listed party; the source's own identifiers (`ent_num`, `reference_number`, ...) may follow.",
  });

const NameScreenMatch = ScreenMatch.extend({
  match: z
    .enum(['exact', 'fuzzy'])
    .meta({ description: '`exact` when the best name equals the screened one once normalised, else `fuzzy`.' }),
  value: z.string().meta({ description: "The party's name that scored best, as published." }),
  metadata: PartyMatchMetadata,
}).meta({ id: 'NameScreenMatch' });

export const NameScreenResponse = ScreenResponse.extend({
  value: z.string().meta({ description: 'The screened name.' }),
  matches: z
    .array(NameScreenMatch)
    .meta({ description: 'One match per listed party at or above the threshold, best first.' }),
}).meta({
  id: 'NameScreenResponse',
  description:
    "The ScreenResponse envelope of every `/screen/*` endpoint, its matches' metadata being the listed party.",
});
