import { ENTITY_TYPES, type EntityRecord, type EntityType, type Metadata } from './model.js';
import { BytePool } from './byte-pool.js';
import { growableBuffer, growBuffer, maxBytesOf } from './growable.js';

export interface EntityView extends EntityRecord {
  id: number;
}

/** Bit of the flags column: the entity was removed from its list. */
export const FLAG_DELISTED = 1;

/**
 * The columns the shard workers read in place while a generation loads (and regex scans later):
 * entity type, list index, flags, and the published values as UTF-8 (`offsets[id]` ..
 * `offsets[id + 1]` in `bytes`). All are growable SharedArrayBuffers written by the calling thread
 * only; a shard is told about a range of ids after it has been written.
 */
export interface SharedColumns {
  types: SharedArrayBuffer;
  lists: SharedArrayBuffer;
  flags: SharedArrayBuffer;
  offsets: SharedArrayBuffer;
  bytes: SharedArrayBuffer;
}

/** Upper bound on entities per generation: the columns reserve address space for this many. */
export const MAX_ENTITIES = 2 ** 28;

function growable(bytesPerEntity: number): SharedArrayBuffer {
  return growableBuffer(1024 * bytesPerEntity, MAX_ENTITIES * bytesPerEntity);
}

/**
 * Typed views over a `SharedColumns` set. They are fixed-length (V8 11 runs length-tracking views
 * ~5x slower) and recreated when the buffers have grown past them.
 */
export class ColumnViews {
  type!: Uint8Array;
  list!: Uint16Array;
  flags!: Uint8Array;
  offsets!: Uint32Array;
  readonly values: BytePool;

  constructor(readonly shared: SharedColumns) {
    this.refresh();
    this.values = new BytePool(shared.bytes);
  }

  protected refresh(): void {
    const { types, lists, flags, offsets } = this.shared;
    this.type = new Uint8Array(types, 0, types.byteLength);
    this.list = new Uint16Array(lists, 0, lists.byteLength / 2);
    this.flags = new Uint8Array(flags, 0, flags.byteLength);
    this.offsets = new Uint32Array(offsets, 0, offsets.byteLength / 4);
  }

  /** Makes the views cover ids below `end` (written by the calling thread before it said so). */
  cover(end: number): void {
    if (end + 1 > this.offsets.length || end > this.type.length) this.refresh();
  }

  value(id: number): string {
    return this.values.text(this.offsets[id], this.offsets[id + 1]);
  }
}

/**
 * Columnar storage of one generation's entities on the calling thread, indexed by dense id. The
 * type, list, flags and value columns live in shared memory (see `SharedColumns`); metadata objects
 * stay here. Repeated strings (source URLs, timestamps) are interned into a table and referenced
 * by index, so millions of records share them.
 */
export class EntityStore extends ColumnViews {
  size = 0;
  readonly metadata: Metadata[] = [];
  private sourceUrl = new Uint32Array(1024);
  private listedAt = new Uint32Array(1024);
  private removedAt = new Uint32Array(1024);
  /** Interned strings; index 0 is null. */
  private readonly strings: (string | null)[] = [null];
  private readonly interned = new Map<string, number>();
  private lastString: string | null = null;
  private lastIndex = 0;

  constructor(readonly listSlugs: string[]) {
    super({ types: growable(1), lists: growable(2), flags: growable(1), offsets: growable(4), bytes: new BytePool().sab });
  }

  private intern(s: string | null): number {
    if (s === null) return 0;
    // Records of one list tend to repeat the previous record's source URL or date.
    if (s === this.lastString) return this.lastIndex;
    let i = this.interned.get(s);
    if (i === undefined) {
      i = this.strings.length;
      this.strings.push(s);
      this.interned.set(s, i);
    }
    this.lastString = s;
    this.lastIndex = i;
    return i;
  }

  private grow(need: number): void {
    const cap = this.sourceUrl.length;
    if (need <= cap) return;
    const next = Math.min(cap * 2, MAX_ENTITIES - 1);
    for (const sab of [this.shared.types, this.shared.lists, this.shared.flags]) growBuffer(sab, (maxBytesOf(sab) / MAX_ENTITIES) * next);
    growBuffer(this.shared.offsets, 4 * (next + 1));
    this.refresh();
    const widen = (a: Uint32Array) => {
      const b = new Uint32Array(next);
      b.set(a);
      return b;
    };
    this.sourceUrl = widen(this.sourceUrl);
    this.listedAt = widen(this.listedAt);
    this.removedAt = widen(this.removedAt);
  }

  add(r: EntityRecord, listIdx: number, typeIdx: number): number {
    const id = this.size;
    if (id + 2 >= MAX_ENTITIES) throw new RangeError(`a generation holds at most ${MAX_ENTITIES - 1} entities`);
    this.grow(id + 2);
    this.list[id] = listIdx;
    this.type[id] = typeIdx;
    this.flags[id] = r.removed_at !== null ? FLAG_DELISTED : 0;
    this.values.append(r.value);
    this.offsets[id + 1] = this.values.size;
    this.metadata.push(r.metadata);
    this.sourceUrl[id] = this.intern(r.source_url);
    this.listedAt[id] = this.intern(r.listed_at);
    this.removedAt[id] = this.intern(r.removed_at);
    this.size = id + 1;
    return id;
  }

  /** Ends loading: drops the interning table, which only helps while records arrive. */
  seal(): void {
    this.interned.clear();
    this.lastString = null;
  }

  entityType(id: number): EntityType {
    return ENTITY_TYPES[this.type[id]];
  }

  isDelisted(id: number): boolean {
    return (this.flags[id] & FLAG_DELISTED) !== 0;
  }

  removed(id: number): string | null {
    return this.strings[this.removedAt[id]];
  }

  view(id: number): EntityView {
    return {
      id,
      list: this.listSlugs[this.list[id]],
      entity_type: ENTITY_TYPES[this.type[id]],
      value: this.value(id),
      metadata: this.metadata[id],
      source_url: this.strings[this.sourceUrl[id]],
      listed_at: this.strings[this.listedAt[id]],
      removed_at: this.strings[this.removedAt[id]],
    };
  }
}
