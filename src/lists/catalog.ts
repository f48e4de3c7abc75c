import type { ListSnapshotInfo, ListType } from '../../engine/model.js';
import type { ListHistory } from '../../loaders/manager.js';
import type { ListDefinition } from '../../loaders/types.js';
import type { ScreeningBasis } from '../core/endpoint.js';
import { HttpError, badRequest, notFound, serviceUnavailable, valueError } from '../core/errors.js';

/**
 * The lists as the API sees them: which exist, which are served, which are screened by default,
 * how a `lists` filter resolves for a caller, and which versions an answer was screened against.
 *
 * Public lists are the registry's and the operator's uploaded lists. A customer's private list
 * (`owner` set, slug `c<customer>.<name>`, which no public slug can equal) exists only for that
 * customer: it joins their default screening set and may be named in their `lists=`; for anyone
 * else it is an unknown list, and no public endpoint ever shows it.
 */
export interface ListLabel {
  list_name: string;
  list_type: ListType;
}

/** Where the catalog learns what is served: the engine and the list manager. */
export interface CatalogSource {
  /** Changes whenever what is served may have (the engine generation). */
  generation(): unknown;
  /** The lists and versions the engine serves. */
  served(): readonly ListSnapshotInfo[];
  /** Every list known: the registry's and the uploaded ones (deleted ones with `deleted_at`). */
  definitions(): readonly ListDefinition[];
  history(slug: string): ListHistory;
}

/** What a screening request resolved to: the lists to screen and the basis its answer states. */
export interface Screening {
  lists: readonly string[];
  basis: ScreeningBasis;
  /** The as-of time (ms) for the engine, or undefined for the current lists. */
  asOf: number | undefined;
}

const VERSIONS_HEADER = 'X-List-Versions';
const AS_OF_HEADER = 'X-As-Of';

/** `slug=version,...` of the lists screened. */
function versionsText(lists: readonly string[], versionOf: (slug: string) => string): string {
  return lists.map((s) => `${s}=${versionOf(s) || '-'}`).join(',');
}

export class ListCatalog {
  readonly primary: ListDefinition;
  private labelMap: ReadonlyMap<string, ListLabel> = new Map();
  private enabled: readonly string[] = [];

  private seen: unknown = Symbol('never');
  /** Lists that can be named now: public enabled ones and private ones, not deleted. */
  private current = new Map<string, ListDefinition>();
  /** Every list, deleted ones too (screening as of a past date). */
  private all = new Map<string, ListDefinition>();
  private loaded: ReadonlySet<string> = new Set();
  private loadedDefaults: readonly string[] = [];
  private loadedEnabled: readonly string[] = [];
  /** A customer's default set when they have private lists (public defaults, then theirs). */
  private ownDefaults = new Map<number, readonly string[]>();
  private servedVersions = new Map<string, string>();
  private bases = new WeakMap<readonly string[], ScreeningBasis>();

  constructor(
    private readonly registry: readonly ListDefinition[],
    private readonly source: CatalogSource = staticSource(registry),
  ) {
    const primary = registry.find((d) => d.primary);
    if (!primary) throw new Error('the list registry declares no primary list');
    this.primary = primary;
  }

  /** Labels of every list (private and deleted ones included: a match names its list). */
  get labels(): ReadonlyMap<string, ListLabel> {
    this.refresh();
    return this.labelMap;
  }

  /** Public lists that are served and may be named in a `lists` filter. */
  get enabledSlugs(): readonly string[] {
    this.refresh();
    return this.enabled;
  }

  /** Recomputes what changed with the generation; the hot path finds everything ready between reloads. */
  private refresh(): void {
    const generation = this.source.generation();
    if (generation === this.seen) return;
    this.seen = generation;
    const defs = [...this.registry];
    const registered = new Set(defs.map((d) => d.slug));
    for (const d of this.source.definitions()) if (!registered.has(d.slug)) defs.push(d);
    this.all = new Map(defs.map((d) => [d.slug, d]));
    this.current = new Map(defs.filter((d) => d.enabled && !d.deleted_at).map((d) => [d.slug, d]));
    this.labelMap = new Map(defs.map((d) => [d.slug, { list_name: d.display_name, list_type: d.list_type }]));
    const served = this.source.served();
    this.servedVersions = new Map(served.map((l) => [l.slug, l.version]));
    this.loaded = new Set(served.map((l) => l.slug));
    const open = [...this.current.values()].filter((d) => d.owner === undefined);
    this.enabled = open.map((d) => d.slug);
    this.loadedEnabled = this.enabled.filter((s) => this.loaded.has(s));
    this.loadedDefaults = open.filter((d) => d.in_default_set && this.loaded.has(d.slug)).map((d) => d.slug);
    this.ownDefaults = new Map();
    for (const d of this.current.values()) {
      if (d.owner === undefined || !this.loaded.has(d.slug)) continue;
      this.ownDefaults.set(d.owner, [...(this.ownDefaults.get(d.owner) ?? this.loadedDefaults), d.slug]);
    }
    this.bases = new WeakMap();
  }

  /** Any list by slug: private and deleted ones too (what a change or a match names). */
  definition(slug: string): ListDefinition | undefined {
    this.refresh();
    return this.all.get(slug);
  }

  /** A public list (registry or operator), disabled registry lists included; undefined for private or deleted ones. */
  get(slug: string): ListDefinition | undefined {
    this.refresh();
    const d = this.all.get(slug);
    return d && d.owner === undefined && !d.deleted_at ? d : undefined;
  }

  /** The public lists as `/screen/lists` shows them: the registry's (disabled ones too), then the operator's. */
  publicDefinitions(): ListDefinition[] {
    this.refresh();
    return [...this.all.values()].filter((d) => d.owner === undefined && !d.deleted_at);
  }

  /** A customer's private lists (deleted ones left out). */
  ownedBy(owner: number): ListDefinition[] {
    this.refresh();
    return [...this.current.values()].filter((d) => d.owner === owner);
  }

  /** Whether a slug names a private list (of anyone). */
  isPrivate(slug: string): boolean {
    this.refresh();
    return this.all.get(slug)?.owner !== undefined;
  }

  /** Whether a list has data in the engine. */
  isLoaded(slug: string): boolean {
    this.refresh();
    return this.loaded.has(slug);
  }

  private visible(slug: string, owner: number | undefined): ListDefinition | undefined {
    const d = this.current.get(slug);
    return d && (d.owner === undefined || d.owner === owner) ? d : undefined;
  }

  /**
   * Resolves a comma-separated `lists` parameter for a caller (`owner`: the customer, if any).
   * Absent or blank: the default set (`scope` 'default', screening; a customer's private lists
   * included) or every public enabled list (`scope` 'enabled', public endpoints), less the lists
   * that have no data yet — they are not screened, so they are not reported as checked.
   * Otherwise the named lists, in the order given, deduplicated: an unknown, disabled or (for
   * anyone but its owner) private slug is a 400 naming it; a named list without data yet is a
   * 503, since answering "no match" would be a false negative.
   */
  resolve(filter: string | undefined, scope: 'default' | 'enabled' = 'default', owner?: number): readonly string[] {
    this.refresh();
    if (filter === undefined || filter.trim() === '') return this.fallback(scope, owner);
    const wanted = [
      ...new Set(
        filter
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean),
      ),
    ];
    if (wanted.length === 0) return this.fallback(scope, owner);
    const bad = wanted.filter((s) => this.visible(s, scope === 'default' ? owner : undefined) === undefined);
    if (bad.length > 0) {
      const unknown = bad.filter((s) => !this.isPublic(s));
      const disabled = bad.filter((s) => this.isPublic(s));
      const parts = [
        unknown.length ? `unknown list${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}` : '',
        disabled.length ? `disabled list${disabled.length > 1 ? 's' : ''}: ${disabled.join(', ')}` : '',
      ].filter(Boolean);
      throw badRequest(`${parts.join('; ')} (see /api/v1/screen/lists)`);
    }
    const missing = wanted.filter((s) => !this.loaded.has(s));
    if (missing.length > 0) throw notLoaded(missing);
    return wanted;
  }

  /**
   * A public enabled list's definition for an endpoint that serves the list itself: 404 when
   * unknown, disabled or private, 503 while it has no data (an empty page would read as "this
   * list is empty").
   */
  requireLoaded(slug: string): ListDefinition {
    const def = this.get(slug);
    if (!def || !def.enabled) throw notFound(`List not found: ${slug}`);
    if (!this.loaded.has(slug)) throw notLoaded([slug]);
    return def;
  }

  private isPublic(slug: string): boolean {
    const d = this.all.get(slug);
    return d !== undefined && d.owner === undefined && !d.deleted_at;
  }

  private fallback(scope: 'default' | 'enabled', owner: number | undefined): readonly string[] {
    if (scope === 'enabled') return this.loadedEnabled;
    return (owner !== undefined && this.ownDefaults.get(owner)) || this.loadedDefaults;
  }

  /** The basis of a screening of `lists` now: the versions the engine serves (one object per resolved array). */
  basis(lists: readonly string[]): ScreeningBasis {
    let b = this.bases.get(lists);
    if (b === undefined) {
      const versions = this.servedVersions;
      const versionOf = (slug: string) => versions.get(slug) ?? '';
      b = { headers: Object.freeze({ [VERSIONS_HEADER]: versionsText(lists, versionOf) }), versionOf, asOf: null };
      this.bases.set(lists, b);
    }
    return b;
  }

  /**
   * `s` narrowed to the lists `keep` accepts (a kind of screening only some lists carry, such as
   * names), its basis stating those lists alone.
   */
  narrow(s: Screening, keep: (slug: string) => boolean): Screening {
    const lists = s.lists.filter(keep);
    const { versionOf, asOf } = s.basis;
    return {
      lists,
      basis: { headers: { ...s.basis.headers, [VERSIONS_HEADER]: versionsText(lists, versionOf) }, versionOf, asOf },
      asOf: s.asOf,
    };
  }

  /**
   * Resolves a screening: the lists now, or, with `asOf` (an ISO date-time), the lists as they
   * stood then. As of a past date the default set holds the lists that existed then (a list
   * created later is left out, one deleted since is in); naming a list that did not exist yet,
   * a time before the history the service keeps, or a time in the future is a 422.
   */
  screening(
    filter: string | undefined,
    owner: number | undefined,
    asOf: string | undefined,
    now: number,
    loc: (string | number)[],
  ): Screening {
    if (asOf === undefined) {
      const lists = this.resolve(filter, 'default', owner);
      return { lists, basis: this.basis(lists), asOf: undefined };
    }
    this.refresh();
    const at = Date.parse(asOf);
    if (at > now) throw valueError(loc, 'as_of is in the future', asOf);
    const named =
      filter !== undefined && filter.trim() !== ''
        ? [
            ...new Set(
              filter
                .split(',')
                .map((s) => s.trim())
                .filter(Boolean),
            ),
          ]
        : null;
    let candidates: ListDefinition[];
    if (named) {
      const unknown = named.filter((s) => {
        const d = this.all.get(s);
        return !d || !d.enabled || (d.owner !== undefined && d.owner !== owner);
      });
      if (unknown.length > 0)
        throw badRequest(
          `unknown list${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')} (see /api/v1/screen/lists)`,
        );
      candidates = named.map((s) => this.all.get(s)!);
    } else {
      candidates = [...this.all.values()].filter(
        (d) => d.enabled && d.in_default_set && (d.owner === undefined || d.owner === owner),
      );
    }
    const lists: string[] = [];
    const versions = new Map<string, string>();
    let earliest: string | null = null;
    for (const d of candidates) {
      const h = this.source.history(d.slug);
      if (h.reach === null) {
        if (named) throw valueError(loc, `list ${d.slug} has no version yet`, asOf);
        continue;
      }
      if (earliest === null || h.reach < earliest) earliest = h.reach;
      if (at < Date.parse(h.reach)) {
        if (h.compacted)
          throw valueError(
            loc,
            `as_of is before the history kept for list ${d.slug} (it reaches back to ${h.reach})`,
            asOf,
          );
        if (named) throw valueError(loc, `list ${d.slug} has no version before ${h.reach}`, asOf);
        continue;
      }
      if (d.deleted_at && Date.parse(d.deleted_at) <= at) {
        if (named) throw valueError(loc, `list ${d.slug} was deleted at ${d.deleted_at}`, asOf);
        continue;
      }
      let version = '';
      for (const v of h.versions) if (Date.parse(v.at) <= at) version = v.version;
      lists.push(d.slug);
      versions.set(d.slug, version);
    }
    if (lists.length === 0) {
      throw valueError(
        loc,
        `as_of is before the first version the service holds${earliest ? ` (${earliest})` : ''}`,
        asOf,
      );
    }
    const missing = lists.filter((s) => !this.loaded.has(s));
    if (missing.length > 0) throw notLoaded(missing);
    const versionOf = (slug: string) => versions.get(slug) ?? '';
    const iso = new Date(at).toISOString();
    return {
      lists,
      basis: {
        headers: { [VERSIONS_HEADER]: versionsText(lists, versionOf), [AS_OF_HEADER]: iso },
        versionOf,
        asOf: at,
      },
      asOf: at,
    };
  }
}

/** A catalog over the registry alone, every list served (tests of the answer's shape). */
function staticSource(registry: readonly ListDefinition[]): CatalogSource {
  const served = registry.map((d) => ({ slug: d.slug, list_type: d.list_type, version: '', last_updated: null }));
  return {
    generation: () => 0,
    served: () => served,
    definitions: () => registry,
    history: () => ({ reach: null, compacted: false, versions: [] }),
  };
}

/** The one answer for lists that have no data yet, whichever endpoint names them. */
function notLoaded(slugs: string[]): HttpError {
  return serviceUnavailable(
    `list${slugs.length > 1 ? 's' : ''} not loaded yet: ${slugs.join(', ')} (see /api/v1/stats)`,
    { 'Retry-After': '60' },
  );
}
