import type { ListType } from '../../engine/model.js';
import type { ListDefinition } from '../../loaders/types.js';
import { HttpError } from '../core/errors.js';

/**
 * The registry as the API sees it: which lists exist, which are served, which are screened by
 * default, and how a `lists` filter resolves.
 */
export interface ListLabel {
  list_name: string;
  list_type: ListType;
}

export class ListCatalog {
  private readonly bySlug: Map<string, ListDefinition>;
  readonly labels: ReadonlyMap<string, ListLabel>;
  readonly defaultSlugs: readonly string[];
  readonly enabledSlugs: readonly string[];
  readonly primary: ListDefinition;

  private seenVersion: unknown = Symbol('never');
  private loadedDefaults: readonly string[] = [];
  private loadedEnabled: readonly string[] = [];
  private loadedSet: ReadonlySet<string> = new Set();

  /**
   * `loadedSlugs` tells which lists have data; it is asked again only when `loadedVersion` (the
   * engine's generation) changes, so the hot path recomputes nothing between reloads.
   */
  constructor(
    readonly definitions: readonly ListDefinition[],
    private readonly loadedVersion: () => unknown = () => 0,
    private readonly loadedSlugs: () => Iterable<string> = () => definitions.map((d) => d.slug),
  ) {
    this.bySlug = new Map(definitions.map((d) => [d.slug, d]));
    this.labels = new Map(definitions.map((d) => [d.slug, { list_name: d.display_name, list_type: d.list_type }]));
    this.enabledSlugs = definitions.filter((d) => d.enabled).map((d) => d.slug);
    this.defaultSlugs = definitions.filter((d) => d.enabled && d.in_default_set).map((d) => d.slug);
    const primary = definitions.find((d) => d.primary);
    if (!primary) throw new Error('the list registry declares no primary list');
    this.primary = primary;
  }

  get(slug: string): ListDefinition | undefined {
    return this.bySlug.get(slug);
  }

  isEnabled(slug: string): boolean {
    return this.bySlug.get(slug)?.enabled === true;
  }

  private refreshLoaded(): void {
    const version = this.loadedVersion();
    if (version === this.seenVersion) return;
    this.seenVersion = version;
    this.loadedSet = new Set(this.loadedSlugs());
    this.loadedDefaults = this.defaultSlugs.filter((s) => this.loadedSet.has(s));
    this.loadedEnabled = this.enabledSlugs.filter((s) => this.loadedSet.has(s));
  }

  /**
   * Resolves a comma-separated `lists` parameter. Absent or blank: the default set (`scope`
   * 'default', screening) or every enabled list (`scope` 'enabled', public endpoints), less the
   * lists that have no data yet — they are not screened, so they are not reported as checked.
   * Otherwise the named lists, in the order given, deduplicated: an unknown or disabled slug is a
   * 400 naming it; a named list without data yet is a 503, since answering "no match" would be
   * a false negative.
   */
  resolve(filter: string | undefined, scope: 'default' | 'enabled' = 'default'): string[] {
    this.refreshLoaded();
    const fallback = scope === 'default' ? this.loadedDefaults : this.loadedEnabled;
    if (filter === undefined || filter.trim() === '') return fallback as string[];
    const wanted = [...new Set(filter.split(',').map((s) => s.trim()).filter(Boolean))];
    if (wanted.length === 0) return fallback as string[];
    const bad = wanted.filter((s) => !this.isEnabled(s));
    if (bad.length > 0) {
      const unknown = bad.filter((s) => !this.bySlug.has(s));
      const disabled = bad.filter((s) => this.bySlug.has(s));
      const parts = [
        unknown.length ? `unknown list${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}` : '',
        disabled.length ? `disabled list${disabled.length > 1 ? 's' : ''}: ${disabled.join(', ')}` : '',
      ].filter(Boolean);
      throw new HttpError(400, `${parts.join('; ')} (see /api/v1/screen/lists)`);
    }
    const missing = wanted.filter((s) => !this.loadedSet.has(s));
    if (missing.length > 0) throw notLoaded(missing);
    return wanted;
  }

  /**
   * An enabled list's definition for an endpoint that serves the list itself: 404 when unknown or
   * disabled, 503 while it has no data (an empty page would read as "this list is empty").
   */
  requireLoaded(slug: string): ListDefinition {
    const def = this.bySlug.get(slug);
    if (!def || !def.enabled) throw new HttpError(404, `List not found: ${slug}`);
    this.refreshLoaded();
    if (!this.loadedSet.has(slug)) throw notLoaded([slug]);
    return def;
  }
}

/** The one answer for lists that have no data yet, whichever endpoint names them. */
function notLoaded(slugs: string[]): HttpError {
  return new HttpError(503, `list${slugs.length > 1 ? 's' : ''} not loaded yet: ${slugs.join(', ')} (see /api/v1/stats)`, { 'Retry-After': '60' });
}
