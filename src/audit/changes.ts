import type { EntityRecord } from '../../engine/model.js';
import type { ListChangeRow, RowSink } from './rows.js';

/**
 * One change of a list between two versions, as the loaders' diff produces it
 * (`loaders/diff.ts`). `at` is an ISO 8601 date-time (or a Date).
 */
export interface ListChange {
  list: string;
  version: string;
  kind: 'listed' | 'delisted' | 'relisted';
  at: string | Date;
  record: EntityRecord;
}

/** Where the list loader writes its changes; resolves once they are stored. */
export interface ChangeSink {
  write(changes: ListChange[]): Promise<void>;
}

export function toChangeRow(c: ListChange): ListChangeRow {
  const at = typeof c.at === 'string' ? Date.parse(c.at) : c.at.getTime();
  if (!Number.isFinite(at)) throw new Error(`list change of ${c.list} has an invalid time: ${String(c.at)}`);
  return {
    list: c.list,
    version: c.version,
    kind: c.kind,
    at,
    entity_type: c.record.entity_type,
    value: c.record.value,
    metadata: JSON.stringify(c.record.metadata ?? {}),
    source_url: c.record.source_url,
  };
}

/** A ChangeSink over the `list_changes` writer. */
export function changeSink(writer: RowSink<ListChangeRow>): ChangeSink {
  return {
    write: (changes) => writer.write(changes.map(toChangeRow)),
  };
}
