import { SCREEN_KINDS, type KindRule } from '../engine/kinds.js';
import type { EntityRecord, EntityType } from '../engine/model.js';
import { valueProblem } from '../engine/normalize/validate.js';

/**
 * Published values brought to the shapes screening accepts, once, at load: every value the
 * engine serves passes its own kind's validator (engine/normalize/validate.ts), so a value taken
 * from a list is never refused when screened. Lists carry oddities: an asset tag after an address
 * (`1PSH...V75A (btc)`), a `mailto:` link filed as a website, an identifier inside a sentence. A
 * value that cannot be repaired (`Telegram` as a website, an e-mail domain without a dot) could
 * never be matched by a valid query; it is left out and counted.
 */

/** The kind of screened value each entity type is validated as (names are not screened by kind). */
export const SCREENED_KIND: Partial<Record<EntityType, KindRule>> = Object.fromEntries(
  Object.values(SCREEN_KINDS).flatMap((kind) => kind.listed.map((type) => [type, kind])),
);

export interface Cleaned {
  records: EntityRecord[];
  /** Values left out, as published (for the log). */
  dropped: EntityRecord[];
}

/** Repairs that keep the value's meaning: the first that gives a valid value of some screened type wins. */
function repairs(r: EntityRecord): { entity_type: EntityType; value: string }[] {
  const v = r.value.trim();
  switch (r.entity_type) {
    case 'crypto_address':
      // An address followed by a note: `<address> (btc)`.
      return [{ entity_type: 'crypto_address', value: v.split(/\s+/)[0] }];
    case 'website': {
      const mail = /^mailto:\s*(.+)$/i.exec(v);
      return mail ? [{ entity_type: 'email', value: mail[1] }] : [];
    }
    case 'government_id': {
      // `... identification number 911-10-77`: the trailing words holding digits.
      const words = v.split(/\s+/);
      let from = words.length;
      while (from > 0 && /\d/.test(words[from - 1])) from--;
      return from < words.length ? [{ entity_type: 'government_id', value: words.slice(from).join(' ') }] : [];
    }
    default:
      return [];
  }
}

export function cleanRecords(records: readonly EntityRecord[]): Cleaned {
  const out: EntityRecord[] = [];
  const dropped: EntityRecord[] = [];
  for (const r of records) {
    const kind = SCREENED_KIND[r.entity_type];
    if (!kind || valueProblem(kind, r.value) === null) {
      out.push(r);
      continue;
    }
    const fixed = repairs(r).find((c) => valueProblem(SCREENED_KIND[c.entity_type]!, c.value) === null);
    if (fixed) out.push({ ...r, ...fixed });
    else dropped.push(r);
  }
  return { records: out, dropped };
}
