import { ENTITY_TYPES, type EntityRecord, type EntityType, type Metadata } from './model.js';
import { ensure } from './growable.js';

export interface EntityView extends EntityRecord {
  id: number;
}

/**
 * Columnar storage of one generation's entities on the calling thread, indexed by dense id.
 * Repeated strings (source URLs, timestamps) are interned so millions of records share them.
 */
export class EntityStore {
  size = 0;
  readonly values: string[] = [];
  /** Canonical key (the same string object as the value when equal); null when not kept. */
  readonly keys: (string | null)[] = [];
  readonly metadata: Metadata[] = [];
  readonly sourceUrl: (string | null)[] = [];
  readonly listedAt: (string | null)[] = [];
  readonly removedAt: (string | null)[] = [];
  list = new Uint16Array(1024);
  type = new Uint8Array(1024);
  private readonly interned = new Map<string, string>();

  constructor(readonly listSlugs: string[]) {}

  private intern(s: string | null): string | null {
    if (s === null) return null;
    const seen = this.interned.get(s);
    if (seen !== undefined) return seen;
    this.interned.set(s, s);
    return s;
  }

  add(r: EntityRecord, listIdx: number, typeIdx: number, key: string | null): number {
    const id = this.size++;
    this.list = ensure(this.list, this.size);
    this.type = ensure(this.type, this.size);
    this.list[id] = listIdx;
    this.type[id] = typeIdx;
    this.values.push(r.value);
    this.keys.push(key === r.value ? r.value : key);
    this.metadata.push(r.metadata);
    this.sourceUrl.push(this.intern(r.source_url));
    this.listedAt.push(this.intern(r.listed_at));
    this.removedAt.push(this.intern(r.removed_at));
    return id;
  }

  /** Ends loading: drops the interning table, which only helps while records arrive. */
  seal(): void {
    this.interned.clear();
  }

  entityType(id: number): EntityType {
    return ENTITY_TYPES[this.type[id]];
  }

  view(id: number): EntityView {
    return {
      id,
      list: this.listSlugs[this.list[id]],
      entity_type: ENTITY_TYPES[this.type[id]],
      value: this.values[id],
      metadata: this.metadata[id],
      source_url: this.sourceUrl[id],
      listed_at: this.listedAt[id],
      removed_at: this.removedAt[id],
    };
  }
}
