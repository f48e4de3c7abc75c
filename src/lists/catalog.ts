import type { ListType } from '../../engine/model.js';
import type { ListDefinition } from '../../loaders/types.js';
import { HttpError } from '../server/errors.js';

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

  constructor(readonly definitions: readonly ListDefinition[]) {
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

  /**
   * Resolves a comma-separated `lists` parameter: absent or blank → the default set; otherwise the
   * named lists, in the order given, deduplicated. An unknown or disabled slug is a 400 naming it.
   */
  resolve(filter: string | undefined, fallback: readonly string[] = this.defaultSlugs): string[] {
    if (filter === undefined || filter.trim() === '') return [...fallback];
    const wanted = [...new Set(filter.split(',').map((s) => s.trim()).filter(Boolean))];
    if (wanted.length === 0) return [...fallback];
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
    return wanted;
  }
}
