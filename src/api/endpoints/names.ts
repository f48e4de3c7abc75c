import type { z } from 'zod';
import type { PartyHit } from '../../../engine/engine.js';
import type { PartyType } from '../../../engine/model.js';
import { NAME_THRESHOLD } from '../../../engine/names/index.js';
import { endpoint, type AnyEndpoint, type RequestContext } from '../../core/endpoint.js';
import { NameScreenInput, NameScreenResponse } from '../schemas/names.js';
import { explainName } from '../../../engine/explain.js';
import { reviewed } from '../finish-match.js';
import {
  auditRows,
  reviewsReady,
  screeningFor,
  SCREENING_HEADERS,
  type CallerScreening,
  type ScreeningDeps,
} from './screen.js';

/**
 * `/screen/name`: a person's or organisation's name against the listed parties (metered,
 * audited). One match per party at or above the threshold, best first; `value` is the party's
 * name that scored best and `metadata` the party with its score and explanation.
 */

export interface NameScreening {
  name: string;
  party_type?: PartyType | 'any';
  birth_date?: string;
  country?: string;
  threshold?: number;
  limit?: number;
}

const DEFAULT_LIMIT = 5;

/**
 * The lists a name is screened against: those the `lists` filter names, else the default set's
 * sanctions lists and the caller's private lists (a customer keeps names of its own there, of
 * whatever list type) that carry names (or parties) in the engine's current generation (worked
 * out once per generation); now or as of `as_of`.
 */
export class NameLists {
  private generation = -1;
  private carrying = new Set<string>();

  constructor(private readonly deps: ScreeningDeps) {}

  private carriesNames(slug: string): boolean {
    const { catalog, engine } = this.deps;
    if (engine.generation() !== this.generation) {
      this.generation = engine.generation();
      const stats = engine.stats().lists;
      this.carrying = new Set(
        Object.keys(stats).filter((s) => {
          const counts = stats[s]?.by_entity_type ?? {};
          return (
            (catalog.labels.get(s)?.list_type === 'sanctions' || catalog.isPrivate(s)) &&
            ((counts.name ?? 0) > 0 || (counts.party ?? 0) > 0)
          );
        }),
      );
    }
    return this.carrying.has(slug);
  }

  /** Narrows a screening resolved without a `lists` filter (a batch's) to the lists that carry names. */
  narrow(s: CallerScreening, filter: string | undefined): CallerScreening {
    return filter !== undefined && filter.trim() !== '' ? s : this.withNames(s);
  }

  private withNames(s: CallerScreening): CallerScreening {
    const { lists, basis, asOf } = this.deps.catalog.narrow(s, (slug) => this.carriesNames(slug));
    return { lists, basis, asOf, reviews: s.reviews };
  }

  /** The screening of a name request, its basis recorded on the context. */
  screening(ctx: RequestContext, filter: string | undefined, asOf: string | undefined): CallerScreening {
    const s = this.narrow(screeningFor(this.deps, ctx, filter, asOf, ['query', 'as_of']), filter);
    ctx.basis = s.basis;
    return s;
  }
}

type NameMatch = z.output<typeof NameScreenResponse>['matches'][number];

/**
 * The party of a hit as a match: its record's metadata, or a name of no party record standing
 * alone; with its explanation in words, and the review of its alert for a customer.
 */
export function partyMatch(h: PartyHit, deps: ScreeningDeps, q: NameScreening, s: CallerScreening): NameMatch {
  const e = h.entity;
  const label = deps.catalog.labels.get(e.list);
  const listName = label?.list_name ?? e.list;
  const m = e.metadata;
  const party =
    e.entity_type === 'party'
      ? { ...m, id: `${e.list}:${e.value}`, caption: String(m.name) }
      : {
          ...m,
          id: `${e.list}:${typeof m.party_id === 'string' ? m.party_id : e.value}`,
          caption: e.value,
          name: e.value,
          party_type: null,
          aliases: [],
          birth_dates: [],
          countries: [],
          identifiers: [],
          programs: Array.isArray(m.programs) ? m.programs : [],
        };
  const value = h.name ?? e.value;
  const metadata = party as NameMatch['metadata'];
  const explanation_text = explainName({
    screened: q.name,
    listName,
    name: value,
    partyId: metadata.id,
    caption: metadata.caption,
    score: h.score,
    threshold: q.threshold ?? NAME_THRESHOLD,
    explanation: h.explanation,
    birthDates: metadata.birth_dates,
    countries: metadata.countries,
    birthDateGiven: q.birth_date !== undefined,
    countryGiven: q.country !== undefined,
  });
  const match = {
    list: e.list,
    list_name: listName,
    list_type: label?.list_type ?? 'sanctions',
    match: h.explanation.name_score === 1 ? ('exact' as const) : ('fuzzy' as const),
    value,
    source_url: e.source_url,
    metadata: { ...metadata, score: h.score, explanation: h.explanation, explanation_text },
  };
  return reviewed(match, q.name, s.reviews);
}

type NameEnvelope = z.output<typeof NameScreenResponse>;

/** Screens one name (REST, tRPC, MCP and batch items alike). */
export async function screenName(deps: ScreeningDeps, q: NameScreening, s: CallerScreening): Promise<NameEnvelope> {
  await reviewsReady(s);
  const lists = s.lists as string[];
  const hits = await deps.engine.screenName({
    asOf: s.asOf,
    name: q.name,
    party_type: q.party_type === undefined || q.party_type === 'any' ? null : q.party_type,
    birth_date: q.birth_date ?? null,
    country: q.country ?? null,
    lists,
    threshold: q.threshold ?? NAME_THRESHOLD,
    limit: q.limit ?? DEFAULT_LIMIT,
  });
  const matches = hits.map((h) => partyMatch(h, deps, q, s));
  return {
    value: q.name,
    flagged: matches.length > 0,
    sanctioned: matches.some((m) => m.list_type === 'sanctions'),
    lists_checked: lists,
    matches,
  };
}

/**
 * No match, to keep it short: v2 clients echo the discovery block holding it inside their payment
 * header (the OpenAPI document shows a match's metadata in PartyMatchMetadata).
 */
const EXAMPLE: NameEnvelope = {
  value: 'Jane Doe',
  flagged: false,
  sanctioned: false,
  lists_checked: ['ofac_sdn', 'un_sc'],
  matches: [],
};

export function nameEndpoints(deps: ScreeningDeps): { endpoints: AnyEndpoint[]; lists: NameLists } {
  const lists = new NameLists(deps);
  return {
    lists,
    endpoints: [
      endpoint({
        id: 'screen.name',
        method: 'GET',
        path: '/screen/name',
        tags: ['screening'],
        summary: 'Screen a name against the listed parties',
        description:
          "A person's, organisation's, vessel's or aircraft's name. Every name of each listed party (aliases, original scripts) is compared with it by one name matcher (any script, spelling and transliteration variants, word order, nicknames, initials, legal forms); " +
          'a birth date or country that agrees raises the score, a clear birth-date conflict lowers it below the threshold, a `party_type` that differs excludes the party, and weak or one-token aliases count only when exact and supported. ' +
          'One match per party at or above `threshold` (0-1, default 0.7), at most `limit` (1-25, default 5), best first; `metadata` is the party (see PartyMatchMetadata) with `score` and `explanation`. ' +
          '`party_type`: `person`, `organization`, `vessel`, `aircraft` or `any`. Without `lists`, the sanctions lists of the default set that carry names. One credit; every match is audited.',
        access: 'metered',
        errors: [400, 503],
        input: NameScreenInput,
        output: NameScreenResponse,
        example: EXAMPLE,
        audit: (_input, out, ctx) => auditRows(out, ctx.basis),
        headers: SCREENING_HEADERS,
        handler: (input, ctx) => screenName(deps, input, lists.screening(ctx, input.lists, input.as_of)),
      }),
    ],
  };
}
