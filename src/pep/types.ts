import type { PepScreenResponseT } from './schema.js';

/** SPEC.md's decision threshold: a candidate with a score at or above it is a match. */
export const PEP_THRESHOLD = 0.7;

/** Topics that make a Person a PEP for screening: the person, or a relative or close associate. */
export const PEP_TOPICS = ['role.pep', 'role.rca'] as const;

export interface PepQuery {
  name: string;
  /** `YYYY`, `YYYY-MM` or `YYYY-MM-DD`. */
  birth_date?: string;
  /** Country name or ISO code as the client gave it. */
  country?: string;
  limit: number;
}

export interface PepProvider {
  readonly kind: 'local' | 'yente';
  /** Throws HttpError (502/503) when the provider cannot answer. */
  screen(query: PepQuery): Promise<PepScreenResponseT>;
}

/** OpenSanctions' page of an entity. */
export function entityUrl(id: string): string {
  return `https://www.opensanctions.org/entities/${encodeURIComponent(id)}/`;
}
