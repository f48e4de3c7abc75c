import type { BulkNameQuery, PartyHit } from '../../engine/engine.js';
import type { PartyType } from '../../engine/model.js';
import type { AuditMatchRow, MatchSubject } from '../audit/rows.js';
import { partyMatch, type NameLists, type NameScreening } from './endpoints/names.js';
import { auditRows, screenValue, type CallerScreening, type ScreeningDeps } from './endpoints/screen.js';
import type { AuditMatch } from '../core/endpoint.js';
import { matchRow, type MatchRowHead } from '../billing/charge-rows.js';
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
/**
 * Subjects whose name queries go to the shards as one round (one message per shard): large
 * enough that messaging costs nothing per subject, small enough (~0.1-0.3 s of a shard) that a
 * `/screen/name` request waiting behind a round is not held long.
 */
const ROUND = 500;

const partyTypeOf = (type: string): PartyType | null => (type === 'unknown' ? null : (type as PartyType));

/** A round's name queries: each subject's names × countries, with the subject each belongs to. */
interface Round {
  queries: BulkNameQuery[];
  /** Query `i` is of subject `owner[i]` (an index into the round's subjects). */
  owner: Uint32Array;
}

function roundOf(subjects: readonly StoredSubject[], from: number, to: number): Round {
  let n = 0;
  for (let i = from; i < to; i++) n += subjects[i].names.length * Math.max(1, subjects[i].countries.length);
  const queries: BulkNameQuery[] = new Array<BulkNameQuery>(n);
  const owner = new Uint32Array(n);
  let k = 0;
  for (let i = from; i < to; i++) {
    const s = subjects[i];
    const party_type = partyTypeOf(s.type);
    const countries = s.countries.length === 0 ? NO_COUNTRY : s.countries;
    for (const name of s.names)
      for (const country of countries) {
        queries[k] = { name, birth_date: s.birth_date, country: country ?? null, party_type };
        owner[k++] = i - from;
      }
  }
  return { queries, owner };
}

const NO_COUNTRY: readonly (string | undefined)[] = [undefined];

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
    const lists = names.lists as string[];
    const head: MatchRowHead = {
      time: at,
      customer_id: customerId,
      payer: '',
      request_id: opts.requestId,
      endpoint: opts.endpoint,
    };
    const rows: AuditMatchRow[] = [];
    for (let from = 0; from < subjects.length; from += ROUND) {
      const to = Math.min(subjects.length, from + ROUND);
      const round = roundOf(subjects, from, to);
      // Started together with the names: their fuzzy-ID queries go to the shards in the same messages.
      const valueRows: (Promise<AuditMatch[]> | null)[] = [];
      for (let i = from; i < to; i++) {
        const exact = this.valueMatches(subjects[i], values);
        // Awaited below; a failed name round must not leave them rejected unheard.
        exact?.catch(() => undefined);
        valueRows.push(exact);
      }
      const hits =
        lists.length === 0
          ? null
          : await this.deps.engine.screenNames(round.queries, { lists, threshold: opts.threshold, limit: NAME_LIMIT });
      let q = 0;
      for (let i = from; i < to; i++) {
        const s = subjects[i];
        const first = q;
        while (q < round.queries.length && round.owner[q] === i - from) q++;
        const found: AuditMatch[] = [];
        if (hits !== null) this.nameMatches(round.queries, hits, first, q, names, opts.threshold, found);
        const exact = valueRows[i - from];
        if (exact !== null) found.push(...(await exact));
        if (found.length === 0) continue;
        const subject: MatchSubject = { external_id: s.external_id, type: s.type, names: s.names };
        for (const m of found) {
          const row = matchRow(head, m);
          row.subject = subject;
          rows.push(row);
        }
      }
    }
    return rows;
  }

  /** One match per party among queries `[first, end)` of a subject: the best of its names and countries. */
  private nameMatches(
    queries: readonly BulkNameQuery[],
    hits: readonly PartyHit[][],
    first: number,
    end: number,
    names: CallerScreening,
    threshold: number,
    out: AuditMatch[],
  ): void {
    let any = false;
    for (let i = first; i < end && !any; i++) any = hits[i].length > 0;
    if (!any) return;
    const best = new Map<string, { hit: PartyHit; i: number }>();
    for (let i = first; i < end; i++)
      for (const hit of hits[i]) {
        const key = `${hit.entity.list}\u0000${hit.entity.id}`;
        const prior = best.get(key);
        if (!prior || hit.score > prior.hit.score) best.set(key, { hit, i });
      }
    for (const { hit, i } of best.values()) {
      const query = queries[i];
      const q: NameScreening = {
        name: query.name,
        party_type: query.party_type ?? 'any',
        birth_date: query.birth_date ?? undefined,
        country: query.country ?? undefined,
        threshold,
      };
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
  }

  /** The subject's identifiers (as government IDs) and other values, screened exactly; null when it has none. */
  private valueMatches(s: StoredSubject, values: CallerScreening): Promise<AuditMatch[]> | null {
    if (s.identifiers.length === 0 && SUBJECT_VALUE_KINDS.every((kind) => s.values[kind].length === 0)) return null;
    return this.screenValues(s, values);
  }

  private async screenValues(s: StoredSubject, values: CallerScreening): Promise<AuditMatch[]> {
    const exact: { kind: 'id' | (typeof SUBJECT_VALUE_KINDS)[number]; value: string }[] = [
      ...s.identifiers.map((i) => ({ kind: 'id' as const, value: i.value })),
      ...SUBJECT_VALUE_KINDS.flatMap((kind) => s.values[kind].map((value) => ({ kind, value }))),
    ];
    const answers = await Promise.all(exact.map((v) => screenValue(this.deps, v.kind, v.value, values)));
    return answers.flatMap((a) => auditRows(a, values.basis));
  }
}
