import type { PartyHit } from '../../engine/engine.js';
import type { PartyType } from '../../engine/model.js';
import type { AuditMatchRow, MatchSubject } from '../audit/rows.js';
import { partyMatch, type NameLists, type NameScreening } from './endpoints/names.js';
import { auditRows, screenValue, type CallerScreening, type ScreeningDeps } from './endpoints/screen.js';
import type { AuditMatch } from '../core/endpoint.js';
import { SUBJECT_VALUE_KINDS } from '../subjects/model.js';
import type { StoredSubject } from '../subjects/store.js';
import type { BookScreener, SubjectScreening } from '../subjects/screening.js';

/**
 * Screens a customer's subjects (issue #39): each name with the subject's birth date, each of its
 * countries and its type against the listed parties, its identifiers as government IDs and its
 * other values exactly, as `/screen/name` and `/screen/{kind}` would answer them. The matches are
 * audit rows carrying the subject, which the alert store keys its alerts on.
 */

/** Parties per name query, as `/screen/name` answers by default. */
const NAME_LIMIT = 5;
/** Subjects whose queries go to the shards together: each shard takes one message of a round's queries. */
const ROUND = 2_000;

const partyTypeOf = (type: string): PartyType | null => (type === 'unknown' ? null : (type as PartyType));

export class SubjectScreener implements BookScreener {
  constructor(
    private readonly deps: ScreeningDeps,
    private readonly names: NameLists,
  ) {}

  async screen(
    customerId: number,
    subjects: readonly StoredSubject[],
    opts: SubjectScreening,
  ): Promise<AuditMatchRow[]> {
    const filter = opts.lists?.join(',');
    const at = Date.now();
    const all = this.deps.catalog.screening(filter, customerId, undefined, at, ['lists']);
    // Subjects' alerts are their own: a screening's decided alerts are not theirs to show.
    // The screening endpoints' one shape (screeningFor), so the shared call sites stay monomorphic.
    const values: CallerScreening = { lists: all.lists, basis: all.basis, asOf: all.asOf, reviews: null };
    const names = this.names.narrow(values, filter);
    const rows: AuditMatchRow[] = [];
    for (let i = 0; i < subjects.length; i += ROUND) {
      const round = subjects.slice(i, i + ROUND);
      const found = await Promise.all(round.map((s) => this.screenOne(s, names, values, opts.threshold)));
      round.forEach((s, j) => {
        const subject: MatchSubject = { external_id: s.external_id, type: s.type, names: s.names };
        for (const m of found[j])
          rows.push({
            time: at,
            customer_id: customerId,
            payer: '',
            request_id: opts.requestId,
            endpoint: opts.endpoint,
            screened_value: m.screened_value,
            matched_value: m.matched_value,
            list: m.list,
            list_type: m.list_type,
            match: m.match,
            list_version: m.list_version,
            as_of: null,
            evidence: m.evidence,
            subject,
          });
      });
    }
    return rows;
  }

  private async screenOne(
    s: StoredSubject,
    names: CallerScreening,
    values: CallerScreening,
    threshold: number,
  ): Promise<AuditMatch[]> {
    const queries: NameScreening[] = [];
    const countries = s.countries.length === 0 ? [undefined] : s.countries;
    for (const name of s.names)
      for (const country of countries)
        queries.push({
          name,
          party_type: partyTypeOf(s.type) ?? 'any',
          birth_date: s.birth_date ?? undefined,
          country,
          threshold,
        });
    const lists = names.lists as string[];
    const nameHits =
      lists.length === 0
        ? []
        : await Promise.all(
            queries.map((q) =>
              this.deps.engine.screenName({
                name: q.name,
                party_type: partyTypeOf(s.type),
                birth_date: s.birth_date,
                country: q.country ?? null,
                lists,
                threshold,
                limit: NAME_LIMIT,
              }),
            ),
          );
    // One match per party: the best of the subject's names and countries.
    const best = new Map<string, { hit: PartyHit; q: NameScreening }>();
    nameHits.forEach((hits, i) => {
      for (const hit of hits) {
        const key = `${hit.entity.list}\u0000${hit.entity.id}`;
        const prior = best.get(key);
        if (!prior || hit.score > prior.hit.score) best.set(key, { hit, q: queries[i] });
      }
    });
    const out: AuditMatch[] = [];
    for (const { hit, q } of best.values()) {
      const m = partyMatch(hit, this.deps, q, names);
      out.push({
        screened_value: q.name,
        matched_value: m.value,
        list: m.list,
        list_type: m.list_type,
        match: m.match,
        list_version: names.basis.versionOf(m.list),
        as_of: null,
        evidence: m,
      });
    }
    const exact: { kind: 'id' | (typeof SUBJECT_VALUE_KINDS)[number]; value: string }[] = [
      ...s.identifiers.map((i) => ({ kind: 'id' as const, value: i.value })),
      ...SUBJECT_VALUE_KINDS.flatMap((kind) => s.values[kind].map((value) => ({ kind, value }))),
    ];
    if (exact.length > 0) {
      const answers = await Promise.all(exact.map((v) => screenValue(this.deps, v.kind, v.value, values)));
      for (const a of answers) out.push(...auditRows(a, values.basis));
    }
    return out;
  }
}
