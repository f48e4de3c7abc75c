import { z } from 'zod';
import { EngineQueryError, RegexTooCostly, type Engine, type EntityView } from '../../../engine/engine.js';
import { endpoint, RawResponse, type AnyEndpoint } from '../../core/endpoint.js';
import {
  DelistedEntity,
  ListEntitiesResponse,
  ListInfo,
  PublicSearchResult,
  StatsResponse,
  listsParam,
} from '../schemas/screen.js';
import type { ListCatalog } from '../../lists/catalog.js';
import { ValidationFailed, badRequest, valueError } from '../../core/errors.js';
import type { RateLimiter } from '../../core/rate-limit.js';
import type { ListDefinition } from '../../../loaders/types.js';
import { csvChunks } from '../csv.js';

/**
 * Public endpoints: no credentials, never metered or audited. They show the public lists only
 * (the registry's and the operator's): a customer's private list never appears here.
 */

interface ListStatusView {
  last_updated: string | null;
  last_error: string | null;
  stale: boolean;
}

export interface PublicDeps {
  engine: Engine;
  catalog: ListCatalog;
  status: () => Record<string, ListStatusView>;
  primaryRefresh: () => { check_minutes_utc: number[]; next_check_at: string };
  searchLimiter: RateLimiter;
  regexEnabled: boolean;
  regexBudgetMs: number;
}

/** Columns of the CSV download, in order (documented in the README). */
const CSV_COLUMNS = ['entity_type', 'value', 'listed_at', 'source_url', 'metadata'] as const;

/** The CSV rows of entities, in CSV_COLUMNS order. */
function* csvRows(entities: readonly EntityView[]): Iterable<string[]> {
  for (const e of entities)
    yield [e.entity_type, e.value, e.listed_at ?? '', e.source_url ?? '', JSON.stringify(e.metadata)];
}

export const EntitiesInput = z.object({
  slug: z.string(),
  format: z
    .string()
    .regex(/^(json|csv)$/)
    .default('json'),
  limit: z.number().int().min(1).max(100000).default(5000),
});

/** One list's active entities as JSON (ListEntitiesResponse) or a CSV download. */
export function listEntities(
  deps: Pick<PublicDeps, 'engine' | 'status'>,
  def: Pick<ListDefinition, 'slug' | 'display_name' | 'list_type'>,
  input: z.output<typeof EntitiesInput>,
): z.output<typeof ListEntitiesResponse> | RawResponse {
  const page = deps.engine.entities(def.slug, { limit: input.limit });
  if (input.format === 'csv') {
    return new RawResponse('text/csv; charset=utf-8', csvChunks(CSV_COLUMNS, csvRows(page.entities)), {
      'Content-Disposition': `attachment; filename="${def.slug}.csv"`,
      'X-Total-Count': String(page.total),
    });
  }
  return {
    list: def.slug,
    list_name: def.display_name,
    list_type: def.list_type,
    total: page.total,
    last_updated: deps.status()[def.slug]?.last_updated ?? null,
    entities: page.entities.map((e) => ({
      entity_type: e.entity_type,
      value: e.value,
      metadata: e.metadata,
      source_url: e.source_url,
      listed_at: e.listed_at,
    })),
  };
}

/**
 * A list's last error as a customer may read it. The loaders' text names server paths and
 * configuration (`…/eu/fsf.csv: not found in SOURCE_DIR`, "set MIXER_RPC_URL"): that stays with
 * the operator (/admin/lists/status); the public answer says only what it means for screening.
 */
function publicError(s: ListStatusView | undefined): string | null {
  if (!s?.last_error) return null;
  return s.last_updated ? 'the last update failed; the previous version is screened' : 'not available on this service';
}

function latest(values: Iterable<string | null>): string | null {
  let best: string | null = null;
  for (const v of values) if (v && (!best || v > best)) best = v;
  return best;
}

type Stats = z.output<typeof StatsResponse>;

/**
 * The /stats body, built and serialized once for as long as what it shows stays the same: the
 * list generation (counts), the enabled lists, each list's status and the primary refresh
 * schedule. Counting a generation's entities and writing the JSON cost ~55 µs of the front-end
 * thread per request; checking that nothing changed reads the statuses and the schedule and
 * compares a few fields per list.
 */
class StatsBody {
  private body: Stats | null = null;
  private bytes: Buffer | null = null;
  private generation = -1;
  private enabled: readonly string[] = [];
  private statuses: Record<string, ListStatusView> = {};

  constructor(private readonly deps: PublicDeps) {}

  current(): Stats {
    const { engine, catalog } = this.deps;
    const generation = engine.generation();
    const enabled = catalog.enabledSlugs;
    const status = this.deps.status();
    const refresh = this.deps.primaryRefresh();
    if (
      this.body === null ||
      generation !== this.generation ||
      enabled !== this.enabled ||
      !sameStatuses(enabled, status, this.statuses) ||
      !sameRefresh(refresh, this.body.primary_refresh)
    ) {
      this.body = this.build(enabled, status, refresh);
      this.bytes = Buffer.from(JSON.stringify(this.body));
      this.generation = generation;
      this.enabled = enabled;
      this.statuses = status;
    }
    return this.body;
  }

  /** The JSON of `out`: the stored bytes when it is the current body. */
  json(out: Stats): string | Buffer {
    return out === this.body && this.bytes ? this.bytes : JSON.stringify(out);
  }

  private build(
    enabled: readonly string[],
    status: Record<string, ListStatusView>,
    refresh: Stats['primary_refresh'],
  ): Stats {
    const stats = this.deps.engine.stats();
    const sources: Stats['sources'] = {};
    let countries = 0;
    let delisted = 0;
    for (const slug of enabled) {
      const def = this.deps.catalog.get(slug)!;
      const s = status[slug];
      const counts = stats.lists[slug];
      countries += counts?.by_entity_type.country ?? 0;
      delisted += counts?.delisted ?? 0;
      sources[slug] = {
        list_type: def.list_type,
        total: counts?.total ?? 0,
        by_entity_type: counts?.by_entity_type ?? {},
        last_updated: s?.last_updated ?? null,
        last_error: publicError(s),
        stale: s?.stale ?? false,
      };
    }
    return {
      sources,
      countries,
      delisted,
      last_updated: latest(enabled.map((s) => status[s]?.last_updated ?? null)),
      primary_refresh: refresh,
    };
  }
}

function sameStatuses(
  slugs: readonly string[],
  a: Record<string, ListStatusView>,
  b: Record<string, ListStatusView>,
): boolean {
  for (const slug of slugs) {
    const x = a[slug];
    const y = b[slug];
    if (x === y) continue;
    if (!x || !y || x.last_updated !== y.last_updated || x.last_error !== y.last_error || x.stale !== y.stale)
      return false;
  }
  return true;
}

function sameRefresh(a: Stats['primary_refresh'], b: Stats['primary_refresh']): boolean {
  return (
    a.next_check_at === b.next_check_at &&
    a.check_minutes_utc.length === b.check_minutes_utc.length &&
    a.check_minutes_utc.every((m, i) => m === b.check_minutes_utc[i])
  );
}

export function publicEndpoints(deps: PublicDeps): AnyEndpoint[] {
  const { engine, catalog } = deps;
  const statsBody = new StatsBody(deps);
  return [
    endpoint({
      id: 'lists.all',
      method: 'GET',
      path: '/screen/lists',
      tags: ['lists'],
      summary: 'The source lists',
      description: 'Every list of the registry, disabled ones with `enabled` false.',
      access: 'public',
      input: z.object({}),
      output: z.array(ListInfo),
      handler: () => {
        const stats = engine.stats().lists;
        const status = deps.status();
        return catalog.publicDefinitions().map((d) => ({
          slug: d.slug,
          display_name: d.display_name,
          list_type: d.list_type,
          kind: d.kind,
          cadence: d.cadence,
          enabled: d.enabled,
          total: d.enabled ? (stats[d.slug]?.total ?? 0) : 0,
          last_updated: status[d.slug]?.last_updated ?? null,
        }));
      },
    }),
    endpoint({
      id: 'lists.entities',
      method: 'GET',
      path: '/screen/lists/{slug}/entities',
      tags: ['lists'],
      summary: 'The full dataset of one list (JSON or CSV)',
      description: `Active entities in a stable order. \`format=csv\` streams a CSV download with the columns ${CSV_COLUMNS.join(', ')} (metadata as JSON).`,
      access: 'public',
      errors: [404, 503],
      input: EntitiesInput,
      output: ListEntitiesResponse,
      handler: (input) => listEntities(deps, catalog.requireLoaded(input.slug), input),
    }),
    endpoint({
      id: 'stats',
      method: 'GET',
      path: '/stats',
      tags: ['lists'],
      summary: 'Counts per list, designations, delistings and the primary refresh schedule',
      access: 'public',
      input: z.object({}),
      output: StatsResponse,
      handler: () => statsBody.current(),
      serialize: (out) => statsBody.json(out),
    }),
    endpoint({
      id: 'delisted',
      method: 'GET',
      path: '/delisted',
      tags: ['lists'],
      summary: 'Recently removed (delisted) entities, newest removal first',
      access: 'public',
      errors: [400, 503],
      input: z.object({ limit: z.number().int().min(1).max(500).default(100), lists: listsParam }),
      output: z.array(DelistedEntity),
      handler: (input) => {
        const lists = catalog.resolve(input.lists, 'enabled');
        return engine.delisted(lists as string[], input.limit).map((e) => ({
          entity_type: e.entity_type,
          value: e.value,
          list: e.list,
          metadata: e.metadata,
          source_url: e.source_url,
          removed_at: e.removed_at!,
        }));
      },
    }),
    endpoint({
      id: 'search',
      method: 'GET',
      path: '/search',
      tags: ['search'],
      summary: 'Free fuzzy or regex search over every list',
      description:
        'Names, companies and identifiers including crypto addresses, e-mails, websites and countries. Delisted rows are included, ranked last, with `removed_at`. ' +
        '`regex` mode takes a case-insensitive POSIX-style regular expression run by a linear-time engine; the answer is always complete: a pattern whose scan needs more CPU time than the budget (`SEARCH_REGEX_BUDGET_MS`) is refused whole with a 422 of type `regex_too_costly`, never answered in part. ' +
        'Never metered, audited or logged; burst-limited per client IP (429 with Retry-After).',
      access: 'public',
      errors: [400, 429, 503],
      input: z.object({
        q: z.string().min(3).max(100).meta({ description: 'Name, company or identifier, including crypto addresses.' }),
        lists: listsParam,
        limit: z.number().int().min(1).max(25).default(10),
        mode: z.enum(['fuzzy', 'regex']).default('fuzzy'),
      }),
      output: z.array(PublicSearchResult),
      handler: async (input, ctx) => {
        deps.searchLimiter.take(ctx.meta.clientIp);
        if (input.mode === 'regex' && !deps.regexEnabled) throw badRequest('regex search is disabled');
        const lists = catalog.resolve(input.lists, 'enabled');
        let hits;
        try {
          hits = await engine.search({
            q: input.q,
            mode: input.mode,
            lists: lists as string[],
            limit: input.limit,
            budgetMs: deps.regexBudgetMs,
          });
        } catch (err) {
          if (err instanceof RegexTooCostly) {
            throw new ValidationFailed([
              {
                type: 'regex_too_costly',
                loc: ['query', 'q'],
                msg: `Value error, ${err.message}`,
                input: input.q,
                ctx: { budget_ms: err.budgetMs },
              },
            ]);
          }
          if (err instanceof EngineQueryError) throw valueError(['query', 'q'], err.message, input.q);
          throw err;
        }
        return hits.map((h) => {
          const label = catalog.labels.get(h.entity.list);
          return {
            entity_type: h.entity.entity_type,
            value: h.entity.value,
            match: h.match,
            similarity: Math.round(h.similarity * 10000) / 10000,
            list: h.entity.list,
            list_name: label?.list_name ?? h.entity.list,
            list_type: label?.list_type ?? 'sanctions',
            metadata: h.entity.metadata,
            source_url: h.entity.source_url,
            removed_at: h.entity.removed_at,
          };
        });
      },
    }),
  ];
}
