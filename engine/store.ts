import { ENTITY_TYPES, type EntityRecord, type EntityType, type Metadata } from './model.js';
import { BytePool } from './byte-pool.js';
import { growableBuffer, growBuffer } from './growable.js';

export interface EntityView extends EntityRecord {
  id: number;
}

/** Flag bit (see `ColumnViews.flagsOf`): the entity was removed from its list. */
export const FLAG_DELISTED = 1;
/** Flag bit: a past listing period of a key that was listed (or removed) again later. */
export const FLAG_SUPERSEDED = 2;

/**
 * The columns the shard workers read in place while a generation loads (and regex scans later).
 * `entities` holds `ENTITY_WORDS` u32 per entity: its meta word, packing the list index (bits
 * 0-15), entity type (16-23) and flags (24-31), then the string-table indices of its source URL,
 * listed_at and removed_at (which only the calling thread reads): a hit's list, state and view
 * come from one cache line. The published values are UTF-8 at `offsets[id]` .. `offsets[id + 1]`
 * in `bytes`. All are growable SharedArrayBuffers written by the calling thread only; a shard is
 * told about a range of ids after it has been written.
 */
export interface SharedColumns {
  entities: SharedArrayBuffer;
  offsets: SharedArrayBuffer;
  bytes: SharedArrayBuffer;
}

/** u32 per entity in `SharedColumns.entities`: meta, source URL, listed_at, removed_at. */
export const ENTITY_WORDS = 4;
const SOURCE = 1;
const LISTED = 2;
const REMOVED = 3;

/** Upper bound on entities per generation: the columns reserve address space for this many. */
const MAX_ENTITIES = 2 ** 28;
/** List indices fit in 16 bits of the meta word. */
const MAX_LISTS = 2 ** 16;

function growable(bytesPerEntity: number): SharedArrayBuffer {
  return growableBuffer(1024 * bytesPerEntity, MAX_ENTITIES * bytesPerEntity);
}

/**
 * Typed views over a `SharedColumns` set. They are fixed-length (V8 11 runs length-tracking views
 * ~5x slower) and recreated when the buffers have grown past them.
 */
export class ColumnViews {
  entities!: Uint32Array;
  offsets!: Uint32Array;
  readonly values: BytePool;

  constructor(readonly shared: SharedColumns) {
    this.refresh();
    this.values = new BytePool(shared.bytes);
  }

  protected refresh(): void {
    const { entities, offsets } = this.shared;
    this.entities = new Uint32Array(entities, 0, entities.byteLength / 4);
    this.offsets = new Uint32Array(offsets, 0, offsets.byteLength / 4);
  }

  /** Makes the views cover ids below `end` (written by the calling thread before it said so). */
  cover(end: number): void {
    if (end + 1 > this.offsets.length || ENTITY_WORDS * end > this.entities.length) this.refresh();
  }

  listOf(id: number): number {
    return this.entities[ENTITY_WORDS * id] & 0xffff;
  }

  typeOf(id: number): number {
    return (this.entities[ENTITY_WORDS * id] >>> 16) & 0xff;
  }

  flagsOf(id: number): number {
    return this.entities[ENTITY_WORDS * id] >>> 24;
  }

  value(id: number): string {
    return this.values.text(this.offsets[id], this.offsets[id + 1]);
  }
}

/**
 * Columnar storage of one generation's entities on the calling thread, indexed by dense id. The
 * entity words and value columns live in shared memory (see `SharedColumns`); metadata objects
 * stay here. Repeated strings (source URLs, timestamps) are interned into a table and referenced
 * by index from the entity words.
 */
export class EntityStore extends ColumnViews {
  size = 0;
  readonly metadata: Metadata[] = [];
  /** Entities the columns have room for. */
  private capacity = 1024;
  /** Interned strings; index 0 is null. */
  private readonly strings: (string | null)[] = [null];
  /** Each interned string as a time (ms), NaN when it is none: listed_at and removed_at without parsing. */
  private times = new Float64Array(0);
  private readonly interned = new Map<string, number>();
  private lastString: string | null = null;
  private lastIndex = 0;

  constructor(readonly listSlugs: string[]) {
    super({ entities: growable(4 * ENTITY_WORDS), offsets: growable(4), bytes: new BytePool().sab });
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

  private grow(): void {
    const next = Math.min(2 * this.capacity, MAX_ENTITIES - 1);
    growBuffer(this.shared.entities, 4 * ENTITY_WORDS * next);
    growBuffer(this.shared.offsets, 4 * (next + 1));
    this.refresh();
    this.capacity = next;
  }

  add(r: EntityRecord, listIdx: number, typeIdx: number): number {
    const id = this.size;
    if (id + 2 >= MAX_ENTITIES) throw new RangeError(`a generation holds at most ${MAX_ENTITIES - 2} entities`);
    if (listIdx >= MAX_LISTS) throw new RangeError(`a generation holds at most ${MAX_LISTS} lists`);
    if (id + 2 > this.capacity) this.grow();
    const flags = r.removed_at !== null ? FLAG_DELISTED | (r.superseded === true ? FLAG_SUPERSEDED : 0) : 0;
    const e = ENTITY_WORDS * id;
    const entities = this.entities;
    entities[e] = (listIdx | (typeIdx << 16) | (flags << 24)) >>> 0;
    entities[e + SOURCE] = this.intern(r.source_url);
    entities[e + LISTED] = this.intern(r.listed_at);
    entities[e + REMOVED] = this.intern(r.removed_at);
    this.values.append(r.value);
    this.offsets[id + 1] = this.values.size;
    this.metadata.push(r.metadata);
    this.size = id + 1;
    return id;
  }

  /** Ends loading: drops the interning table, which only helps while records arrive. */
  seal(): void {
    this.interned.clear();
    this.lastString = null;
    this.times = Float64Array.from(this.strings, (s) => (s === null ? NaN : Date.parse(s)));
  }

  entityType(id: number): EntityType {
    return ENTITY_TYPES[this.typeOf(id)];
  }

  isDelisted(id: number): boolean {
    return (this.flagsOf(id) & FLAG_DELISTED) !== 0;
  }

  isSuperseded(id: number): boolean {
    return (this.flagsOf(id) & FLAG_SUPERSEDED) !== 0;
  }

  /**
   * Whether the entity was on its list at `at` (ms): listed at or before it and not removed by
   * then. An entity with no listing time (never the case for a committed version) never was.
   */
  listedAt(id: number, at: number): boolean {
    const e = ENTITY_WORDS * id;
    const listed = this.times[this.entities[e + LISTED]];
    if (!(listed <= at)) return false;
    const removed = this.entities[e + REMOVED];
    return removed === 0 || this.times[removed] > at;
  }

  removed(id: number): string | null {
    return this.strings[this.entities[ENTITY_WORDS * id + REMOVED]];
  }

  /** The entity as a plain object; `value` when the caller already holds the published value. */
  view(id: number, value: string = this.value(id)): EntityView {
    const e = ENTITY_WORDS * id;
    const entities = this.entities;
    const meta = entities[e];
    return {
      id,
      list: this.listSlugs[meta & 0xffff],
      entity_type: ENTITY_TYPES[(meta >>> 16) & 0xff],
      value,
      metadata: this.metadata[id],
      source_url: this.strings[entities[e + SOURCE]],
      listed_at: this.strings[entities[e + LISTED]],
      removed_at: this.strings[entities[e + REMOVED]],
    };
  }
}
