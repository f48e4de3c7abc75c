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

/** The five screening endpoints: one envelope, one optional `lists` filter, metered. */

export interface ScreeningDeps {
  engine: Engine;
  catalog: ListCatalog;
  ens: EnsResolver;
}

export type ScreenEnvelope = z.output<typeof ScreenResponse>;

/**
 * The `matches` of every answer without any, shared: most screened values match nothing, and a
 * batch of 10,000 made an array for each. Frozen, since no answer is changed once made.
 */
const NO_MATCHES = Object.freeze([]) as unknown as ScreenEnvelope['matches'];

/** Builds the ScreenResponse for hits of one value. Shared by REST, batch and MCP. */
export function envelope(
  value: string,
  lists: readonly string[],
  hits: readonly Hit[],
  catalog: ListCatalog,
): ScreenEnvelope {
  if (hits.length === 0)
    return { value, flagged: false, sanctioned: false, lists_checked: lists as string[], matches: NO_MATCHES };
  const matches = hits.map((h) => {
    const label = catalog.labels.get(h.entity.list);
    return {
      list: h.entity.list,
      list_name: label?.list_name ?? h.entity.list,
      list_type: label?.list_type ?? 'risk',
      match: h.match,
      value: h.entity.value,
      source_url: h.entity.source_url,
      metadata: h.entity.metadata,
    };
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
  }));
}

/** The customer whose private lists a caller sees (none for a payer or anonymous caller). */
function ownerOf(caller: Caller): number | undefined {
  return caller.kind === 'customer' ? caller.customerId : undefined;
}

/**
 * Resolves the lists of a screening request for its caller, now or as of `as_of`, and records
 * the basis on the context (the pipeline states it in headers and audit rows).
 */
export function screeningFor(
  deps: ScreeningDeps,
  ctx: RequestContext,
  lists: string | undefined,
  asOf: string | undefined,
  loc: (string | number)[],
): Screening {
  const s = deps.catalog.screening(lists, ownerOf(ctx.caller), asOf, ctx.now(), loc);
  ctx.basis = s.basis;
  return s;
}

/** Screens one value of a kind: synchronously on the engine's exact path, else once the shards answered. */
export function screenValue(
  deps: ScreeningDeps,
  kind: ScreenKind,
  value: string,
  s: Screening,
): ScreenEnvelope | Promise<ScreenEnvelope> {
  return (
    screenValueNow(deps, kind, value, s) ??
    deps.engine
      .screen({ kind, value, lists: s.lists as string[], asOf: s.asOf })
      .then((hits) => envelope(value, s.lists, hits, deps.catalog))
  );
}

/** `screenValueNow` of a batch item, validated and normalized before (see batch.ts). */
export function screenPreparedNow(
  deps: ScreeningDeps,
  kind: ScreenKind,
  prepared: PreparedValue,
  value: string,
  s: Screening,
): ScreenEnvelope | null {
  const hits = deps.engine.screenPrepared(kind, prepared, s.lists as string[], s.asOf);
  return hits && envelope(value, s.lists, hits, deps.catalog);
}

/** The answer when the engine's exact path alone decides it (on this thread, now); null when the shards must be asked (fuzzy kinds). */
function screenValueNow(deps: ScreeningDeps, kind: ScreenKind, value: string, s: Screening): ScreenEnvelope | null {
  const hits = deps.engine.screenExact({ kind, value, lists: s.lists as string[], asOf: s.asOf });
  return hits && envelope(value, s.lists, hits, deps.catalog);
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
      source_url: 'https://sanctionssearch.ofac.treas.gov/Details.aspx?id=31597',
      metadata: { symbol: 'XBT', network: 'bitcoin', sdn_name: 'EXAMPLE PARTY', programs: ['CYBER2'] },
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
  /** An endpoint screening its one parameter as given (everything but crypto, which may resolve ENS first). */
  const direct = (
    id: string,
    path: string,
    kind: ScreenKind,
    param: string,
    paramDescription: string,
    summary: string,
    description: string,
  ) =>
    endpoint({
      ...common,
      id,
      path,
      summary,
      description,
      input: z.object({ [param]: screenedValue(kind, paramDescription), lists: listsParam, as_of: asOfParam }),
      handler: (input: Record<string, string | undefined>, ctx: RequestContext) =>
        screenValue(deps, kind, input[param]!, screeningFor(deps, ctx, input.lists, input.as_of, ['query', 'as_of'])),
    });
  return [
    endpoint({
      ...common,
      id: 'screen.crypto',
      path: '/screen/crypto/{address}',
      summary: 'Screen a crypto address (any chain) or an ENS name',
      description:
        'Checksum and case variants of an address are the same address. A dotted name is resolved through ENS and `value` is the resolved address; a name that does not resolve is a 422, an unreachable Ethereum RPC a 503. ' +
        'With `as_of`, an ENS name is resolved as of now (ENS history is not kept) and the address is screened against the lists as they stood then.',
      input: z.object({
        address: screenedValue('crypto', 'An address on any chain, or an ENS name (anything with a dot).'),
        lists: listsParam,
        as_of: asOfParam,
      }),
      handler: (input, ctx) => {
        const s = screeningFor(deps, ctx, input.lists, input.as_of, ['query', 'as_of']);
        if (!EnsResolver.isName(input.address)) return screenValue(deps, 'crypto', input.address, s);
        return deps.ens
          .resolve(input.address, ['path', 'address'])
          .then((address) => screenValue(deps, 'crypto', address, s));
      },
    }),
    direct(
      'screen.email',
      '/screen/email/{email}',
      'email',
      'email',
      'An e-mail address.',
      'Screen an e-mail address',
      'Matches listed addresses (case-insensitive, IDNA domains) and listed e-mail domains such as disposable providers (`domain`).',
    ),
    direct(
      'screen.website',
      '/screen/website',
      'website',
      'address',
      'Website address (URL) or web domain.',
      'Screen a website address or web domain',
      'A full URL or a bare domain. A listed domain also matches its subdomains (`subdomain`).',
    ),
    direct(
      'screen.id',
      '/screen/id/{government_id}',
      'id',
      'government_id',
      'The identifier as written on the document.',
      'Screen a government-issued identifier (fuzzy)',
      'Passport, national ID, tax or registration numbers. Punctuation and spaces are ignored (`exact`); near misses such as one wrong character match as `fuzzy`.',
    ),
    direct(
      'screen.country',
      '/screen/country/{country}',
      'country',
      'country',
      'Country or region.',
      "Screen a country or region's sanctions designations",
      'ISO 3166 alpha-2, alpha-3 or numeric code, English name or common alias, or a region (e.g. Crimea, UA-43). A country containing a designated region matches it as `region`.',
    ),
  ];
}
