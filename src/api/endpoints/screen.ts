import { z } from 'zod';
import type { Engine, Hit, ScreenKind } from '../../../engine/engine.js';
import {
  endpoint,
  type AnyEndpoint,
  type AuditMatch,
  type Caller,
  type RequestContext,
  type ScreeningBasis,
} from '../../core/endpoint.js';
import { ScreenResponse, asOfParam, listsParam, screenedValue } from '../schemas/screen.js';
import type { ListCatalog, Screening } from '../../lists/catalog.js';
import { EnsResolver } from '../../ens/resolver.js';
import { screenResponseBody } from '../screen-json.js';
import type { PreparedValue } from '../../../engine/normalize/validate.js';
import { endpointIdOf, type PublishedKind, type ScreeningKinds } from '../../core/kinds.js';
import type { CustomerReviews, ReviewView } from '../../alerts/review-view.js';
import { listedMetadata, reviewed } from '../finish-match.js';

/** A screening endpoint per kind (the table of kinds): one envelope, one optional `lists` filter, metered. */

export interface ScreeningDeps {
  engine: Engine;
  catalog: ListCatalog;
  ens: EnsResolver;
  kinds: ScreeningKinds;
  /** Customers' decided alerts, named in their answers' matches (absent: no `metadata.review`). */
  reviews?: ReviewView;
}

/** A screening resolved for its caller: a customer's decided alerts come with it. */
export interface CallerScreening extends Screening {
  reviews: CustomerReviews | null;
}

export type ScreenEnvelope = z.output<typeof ScreenResponse>;

/**
 * The `matches` of every answer without any, shared: most screened values match nothing, and a
 * batch of 10,000 made an array for each. Frozen, since no answer is changed once made.
 */
const NO_MATCHES = Object.freeze([]) as unknown as ScreenEnvelope['matches'];

/** Builds the ScreenResponse for hits of one value, its matches finished (finish-match.ts). Shared by REST, batch and MCP. */
export function envelope(
  value: string,
  lists: readonly string[],
  hits: readonly Hit[],
  catalog: ListCatalog,
  reviews?: CustomerReviews | null,
): ScreenEnvelope {
  if (hits.length === 0)
    return { value, flagged: false, sanctioned: false, lists_checked: lists as string[], matches: NO_MATCHES };
  const matches = hits.map((h) => {
    const label = catalog.labels.get(h.entity.list);
    const listName = label?.list_name ?? h.entity.list;
    const match = {
      list: h.entity.list,
      list_name: listName,
      list_type: label?.list_type ?? 'risk',
      match: h.match,
      value: h.entity.value,
      source_url: h.entity.source_url,
      metadata: listedMetadata(h, listName, value),
    };
    return reviewed(match, value, reviews);
  });
  return {
    value,
    flagged: matches.length > 0,
    sanctioned: matches.some((m) => m.list_type === 'sanctions'),
    // The catalog's resolved array itself: its JSON is then cached (screen-json.ts).
    lists_checked: lists as string[],
    matches,
  };
}

/** The audit rows of an answer: one per match, with the version of its list and the as-of time. */
export function auditRows(out: ScreenEnvelope, basis: ScreeningBasis | undefined): AuditMatch[] {
  return out.matches.map((m) => ({
    screened_value: out.value,
    matched_value: m.value,
    list: m.list,
    list_type: m.list_type,
    match: m.match,
    list_version: basis?.versionOf(m.list) ?? '',
    as_of: basis?.asOf ?? null,
    evidence: m,
  }));
}

/** The customer whose private lists a caller sees (none for a payer or anonymous caller). */
function ownerOf(caller: Caller): number | undefined {
  return caller.kind === 'customer' ? caller.customerId : undefined;
}

/**
 * Resolves the lists of a screening request for its caller, now or as of `as_of`, and records
 * the basis on the context (the pipeline states it in headers and audit rows). A customer's
 * decided alerts come with it (read on the customer's first screening: see `reviewsReady`).
 */
export function screeningFor(
  deps: ScreeningDeps,
  ctx: RequestContext,
  lists: string | undefined,
  asOf: string | undefined,
  loc: (string | number)[],
): CallerScreening {
  const owner = ownerOf(ctx.caller);
  const s = deps.catalog.screening(lists, owner, asOf, ctx.now(), loc);
  ctx.basis = s.basis;
  // One shape for every caller: a spread of `s` or a missing `reviews` made these sites polymorphic
  // and cost the no-match route a third of its req/s (docs/investigations/2026-11-28-review-view-shape.md).
  return {
    lists: s.lists,
    basis: s.basis,
    asOf: s.asOf,
    reviews: owner === undefined || !deps.reviews ? null : deps.reviews.of(owner),
  };
}

/** Resolves once the screening's reviews are read (at once but for a customer's first screening). */
export function reviewsReady(s: CallerScreening): Promise<void> | null {
  return s.reviews?.pending ?? null;
}

/** Screens one value of a kind: synchronously on the engine's exact path, else once the shards answered. */
export function screenValue(
  deps: ScreeningDeps,
  kind: ScreenKind,
  value: string,
  s: CallerScreening,
): ScreenEnvelope | Promise<ScreenEnvelope> {
  const pending = reviewsReady(s);
  if (pending) return pending.then(() => screenValue(deps, kind, value, s));
  return (
    screenValueNow(deps, kind, value, s) ??
    deps.engine
      .screen({ kind, value, lists: s.lists as string[], asOf: s.asOf })
      .then((hits) => envelope(value, s.lists, hits, deps.catalog, s.reviews))
  );
}

/** `screenValueNow` of a batch item, validated and normalized before (see batch.ts); null too while the reviews are read. */
export function screenPreparedNow(
  deps: ScreeningDeps,
  kind: ScreenKind,
  prepared: PreparedValue,
  value: string,
  s: CallerScreening,
): ScreenEnvelope | null {
  if (reviewsReady(s)) return null;
  const hits = deps.engine.screenPrepared(kind, prepared, s.lists as string[], s.asOf);
  return hits && envelope(value, s.lists, hits, deps.catalog, s.reviews);
}

/** The answer when the engine's exact path alone decides it (on this thread, now); null when the shards must be asked (fuzzy kinds). */
function screenValueNow(
  deps: ScreeningDeps,
  kind: ScreenKind,
  value: string,
  s: CallerScreening,
): ScreenEnvelope | null {
  const hits = deps.engine.screenExact({ kind, value, lists: s.lists as string[], asOf: s.asOf });
  return hits && envelope(value, s.lists, hits, deps.catalog, s.reviews);
}

const EXAMPLE: ScreenEnvelope = {
  value: '12QtD5BFwRsdNsAZY76UVE1xyCGNTojH9h',
  flagged: true,
  sanctioned: true,
  lists_checked: ['ofac_sdn'],
  matches: [
    {
      list: 'ofac_sdn',
      list_name: 'OFAC Specially Designated Nationals',
      list_type: 'sanctions',
      match: 'exact',
      value: '12QtD5BFwRsdNsAZY76UVE1xyCGNTojH9h',
      // Short: the x402 v2 payment header echoes this example and must fit in 3.5 KB.
      metadata: {
        symbol: 'XBT',
        network: 'bitcoin',
        sdn_name: 'EXAMPLE PARTY',
        programs: ['CYBER2'],
        explanation_text: 'Listed on OFAC SDN as EXAMPLE PARTY.',
      },
    },
  ],
};

/** Response headers of every screening answer (OpenAPI). */
export const SCREENING_HEADERS: Record<string, string> = {
  'X-List-Versions':
    'The version of each list screened, `slug=version` separated by commas (the same versions the audit rows record).',
  'X-As-Of': 'With `as_of`: the time the lists were screened as of (ISO 8601, UTC).',
};

export function screeningEndpoints(deps: ScreeningDeps): AnyEndpoint[] {
  const common = {
    method: 'GET' as const,
    tags: ['screening'],
    access: 'metered' as const,
    output: ScreenResponse,
    errors: [400, 503],
    example: EXAMPLE,
    audit: (_: unknown, out: ScreenEnvelope, ctx: RequestContext) => auditRows(out, ctx.basis),
    serialize: screenResponseBody,
    headers: SCREENING_HEADERS,
  };
  const screening = (kind: PublishedKind) => {
    const param = kind.param.name;
    return endpoint({
      ...common,
      id: endpointIdOf(kind),
      path: kind.param.in === 'path' ? `/screen/${kind.rule.name}/{${param}}` : `/screen/${kind.rule.name}`,
      summary: kind.summary,
      description: kind.description,
      input: z.object({
        [param]: screenedValue(kind.rule, kind.param.description),
        lists: listsParam,
        as_of: asOfParam,
      }),
      handler: (input: Record<string, string | undefined>, ctx: RequestContext) => {
        const value = input[param]!;
        const s = screeningFor(deps, ctx, input.lists, input.as_of, ['query', 'as_of']);
        if (!kind.ens || !EnsResolver.isName(value)) return screenValue(deps, kind.rule, value, s);
        return deps.ens
          .resolve(value, [kind.param.in, param])
          .then((address) => screenValue(deps, kind.rule, address, s));
      },
    });
  };
  return deps.kinds.all.map(screening);
}
