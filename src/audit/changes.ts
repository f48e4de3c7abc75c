import type { ChangeSink, ListChange } from '../../loaders/diff.js';
import type { ListChangeRow, RowSink } from './rows.js';

export type { ChangeSink };

/** A loader change as a `list_changes` row (metadata as JSON text). */
function toChangeRow(c: ListChange): ListChangeRow {
  const at = Date.parse(c.at);
  if (!Number.isFinite(at)) throw new Error(`list change of ${c.list} has an invalid time: ${String(c.at)}`);
  return {
    seq: c.seq,
    change_id: c.change_id,
    owner: c.owner,
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
