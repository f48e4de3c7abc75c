import { endpoint, type AnyEndpoint } from '../../core/endpoint.js';
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
    },
  ],
};

/** `/screen/pep`: a person's name against the politically-exposed-persons dataset. */
export function pepEndpoints(deps: { pep: PepProvider }): AnyEndpoint[] {
  const { pep } = deps;
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
      handler: (input) => pep.screen(input),
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
