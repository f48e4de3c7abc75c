import { endpoint, type AnyEndpoint } from '../../core/endpoint.js';
import type { ReviewView } from '../../alerts/review-view.js';
import { PEP_THRESHOLD } from '../../pep/types.js';
import { pepCandidate } from '../finish-match.js';
import { PepInput } from '../schemas/pep.js';
import { PepScreenResponse } from '../../pep/schema.js';
import type { PepProvider } from '../../pep/index.js';

const EXAMPLE = {
  value: 'Jake Auchincloss',
  pep: true,
  dataset: 'peps',
  matches: [
    {
      id: 'Q101196632',
      caption: 'Jake Auchincloss',
      score: 1,
      match: true,
      topics: ['role.pep'],
      countries: ['us'],
      birth_dates: ['1988'],
      positions: ['United States representative'],
      datasets: ['us_congress'],
      source_url: 'https://www.opensanctions.org/entities/Q101196632',
      // Short: the x402 v2 payment header echoes this example and must fit in 3.5 KB.
      explanation_text: 'A PEP candidate; score 1.00, threshold 0.70.',
    },
  ],
};

/** `/screen/pep`: a person's name against the politically-exposed-persons dataset. */
export function pepEndpoints(deps: { pep: PepProvider; reviews?: ReviewView }): AnyEndpoint[] {
  const { pep, reviews } = deps;
  return [
    endpoint({
      id: 'screen.pep',
      method: 'GET',
      path: '/screen/pep',
      tags: ['screening'],
      summary: 'Screen a person against politically exposed persons',
      description:
        'Fuzzy name matching against a politically-exposed-persons dataset (OpenSanctions), sharpened by birth date and country. `pep` is true when a candidate reaches the 0.7 decision threshold. No `lists` filter. `as_of` is refused (422): the dataset is asked live and keeps no history.',
      access: 'metered',
      errors: [502, 503],
      input: PepInput,
      output: PepScreenResponse,
      example: EXAMPLE,
      handler: async (input, ctx) => {
        const customer = ctx.caller.kind === 'customer' ? reviews?.of(ctx.caller.customerId) : undefined;
        const out = await pep.screen(input);
        await customer?.pending;
        return {
          ...out,
          matches: out.matches.map((m) => pepCandidate(m, input.name, out.dataset, PEP_THRESHOLD, customer)),
        };
      },
      audit: (input, output) =>
        output.matches
          .filter((m) => m.match)
          .map((m) => ({
            screened_value: input.name,
            matched_value: m.caption,
            list: output.dataset,
            list_type: 'risk' as const,
            match: 'fuzzy',
            list_version: '',
            as_of: null,
            evidence: m,
          })),
    }),
  ];
}
