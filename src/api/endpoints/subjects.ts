import { jobView } from '../../subjects/jobs.js';
import { z } from 'zod';
import { normalizeCountry } from '../../../engine/normalize/index.js';
import type { RowSink, AuditMatchRow } from '../../audit/rows.js';
import { Created, endpoint, type AnyEndpoint, type Caller } from '../../core/endpoint.js';
import { conflict, forbidden, notFound, valueError } from '../../core/errors.js';
import { externalIdParam, subjectRecord } from '../../subjects/model.js';
import type { Rescreens } from '../../subjects/rescreen.js';
import type { SubjectScreener } from '../subject-screener.js';
import {
  SubjectCursorError,
  SubjectLimitExceeded,
  type ListedSubject,
  type SubjectStore,
} from '../../subjects/store.js';
import {
  Subject,
  SubjectJob,
  SubjectList,
  SubjectListInput,
  SubjectPutInput,
  SubjectPutResponse,
} from '../schemas/subjects.js';
import { customerOf } from './account.js';

/**
 * A customer's book of subjects (issue #39, docs/monitoring.md "Subjects"): a PUT stores one and,
 * when it is new or its screened fields changed, screens it at once for one credit; its matches go
 * to the audit trail and open alerts that carry the subject.
 */

export interface SubjectsDeps {
  store: SubjectStore;
  screener: SubjectScreener;
  /** The audit sink of matches that also opens the alerts (src/alerts/sink.ts); `write` waits for both. */
  matches: RowSink<AuditMatchRow>;
  /** The re-screens a change of the name threshold starts (PATCH /account). */
  rescreens: Pick<Rescreens, 'get'>;
}

const TAGS = ['account'];
const PUT_ENDPOINT = 'subjects.put';

type SubjectOut = z.output<typeof Subject>;

function subjectView(s: ListedSubject): SubjectOut {
  return {
    external_id: s.external_id,
    type: s.type,
    names: s.names,
    birth_date: s.birth_date,
    countries: s.countries,
    identifiers: s.identifiers,
    values: s.values,
    created_at: s.created_at,
    updated_at: s.updated_at,
    screened_at: s.screened_at,
    open_alerts: s.open_alerts,
  };
}

/** A PUT screens and is charged to a customer's quota: an x402 payer has no book. */
function bookOwner(caller: Caller): number {
  if (caller.kind === 'payer')
    throw forbidden('Subjects belong to a customer’s book: use a customer’s API token, not an x402 payment');
  return customerOf(caller);
}

const ExternalIdInput = z.object({ external_id: externalIdParam }).strict();
const JobIdInput = z.object({ id: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER) }).strict();

export function subjectEndpoints(deps: SubjectsDeps): AnyEndpoint[] {
  const { store, screener, matches, rescreens } = deps;
  const view = async (customerId: number, externalId: string) => {
    const s = await store.view(customerId, externalId);
    if (!s) throw notFound(`Subject not found: ${externalId}`);
    return s;
  };
  return [
    endpoint({
      id: PUT_ENDPOINT,
      method: 'PUT',
      path: '/account/subjects/{external_id}',
      tags: TAGS,
      summary: 'Add or replace a subject of the customer’s book, screened when new or changed',
      description:
        'Upsert by `external_id`. A subject that is new (201) or whose screened fields changed (200, `screened: true`) is screened at once — each name with the birth date, each country and the type; identifiers as government IDs; values exactly — against the lists the customer screens by default, at the customer’s `name_threshold`, for one credit; its matches open alerts with `subject`. ' +
        'Unchanged, it is neither screened nor charged (`screened: false`), but one credit must be available. ' +
        'A customer’s API token with scope `screen`; 409 when the book would exceed SUBJECTS_PER_CUSTOMER.',
      access: 'metered',
      created: true,
      errors: [402, 403, 409, 503],
      input: SubjectPutInput,
      output: SubjectPutResponse,
      handler: async (input, ctx) => {
        const customerId = bookOwner(ctx.caller);
        const { external_id, ...fields } = input;
        let up;
        try {
          [up] = await store.upsertMany(customerId, [subjectRecord(external_id, fields)]);
        } catch (err) {
          if (err instanceof SubjectLimitExceeded) throw conflict(err.message);
          throw err;
        }
        const stored = (await store.get(customerId, external_id))!;
        // Also a subject whose earlier screening failed after it was stored: a retry screens it.
        const screen = up.changed || stored.screened_at === null;
        let alerts: number[] = [];
        if (screen) {
          const threshold = await store.nameThreshold(customerId);
          const rows = await screener.screen(customerId, [stored], {
            threshold,
            requestId: ctx.meta.requestId,
            endpoint: PUT_ENDPOINT,
          });
          await matches.write(rows);
          await store.markScreened([stored.id], new Date(ctx.now()));
          alerts = rows.length === 0 ? [] : await store.alertsOf(customerId, external_id, ctx.meta.requestId);
        } else ctx.credits = 0;
        const body = {
          subject: subjectView(await view(customerId, external_id)),
          created: up.created,
          screened: screen,
          alerts,
        };
        return up.created ? new Created(body) : body;
      },
    }),
    endpoint({
      id: 'subjects.get',
      method: 'GET',
      path: '/account/subjects/{external_id}',
      tags: TAGS,
      summary: 'One subject of the customer’s book',
      access: 'account',
      errors: [404],
      input: ExternalIdInput,
      output: Subject,
      handler: async (input, ctx) => subjectView(await view(customerOf(ctx.caller), input.external_id)),
    }),
    endpoint({
      id: 'subjects.delete',
      method: 'DELETE',
      path: '/account/subjects/{external_id}',
      tags: TAGS,
      summary: 'Delete a subject: it is never screened nor alerted again; its alerts stay',
      description: 'Answers the subject as it was.',
      access: 'account',
      errors: [404],
      input: ExternalIdInput,
      output: Subject,
      handler: async (input, ctx) => {
        const customerId = customerOf(ctx.caller);
        const s = await view(customerId, input.external_id);
        if (!(await store.delete(customerId, input.external_id)))
          throw notFound(`Subject not found: ${input.external_id}`);
        return subjectView(s);
      },
    }),
    endpoint({
      id: 'subjects.list',
      method: 'GET',
      path: '/account/subjects',
      tags: TAGS,
      summary: 'The customer’s book of subjects, newest first',
      description:
        '`q`: text in a name or the external id (case-insensitive); `type`; `country` (name or ISO code); `has_alerts`: with (or without) alerts in `open` or `escalated`. Pages by `cursor`.',
      access: 'account',
      input: SubjectListInput,
      output: SubjectList,
      handler: async (input, ctx) => {
        let country: string | undefined;
        if (input.country !== undefined) {
          const ref = normalizeCountry(input.country);
          if (ref === null)
            throw valueError(['query', 'country'], 'not a known country name or ISO code', input.country);
          country = ref.parent ?? ref.code;
        }
        try {
          const page = await store.list(customerOf(ctx.caller), { ...input, country });
          return { subjects: page.subjects.map(subjectView), next_cursor: page.next_cursor };
        } catch (err) {
          if (err instanceof SubjectCursorError) throw valueError(['query', 'cursor'], err.message, input.cursor);
          throw err;
        }
      },
    }),
    endpoint({
      id: 'subjects.rescreenJob',
      method: 'GET',
      path: '/account/subjects/rescreens/{id}',
      tags: TAGS,
      summary: 'A re-screen of the whole book after a change of `name_threshold`: progress, alerts opened',
      description:
        '`total` is the book’s size when it started, `rows_read` the subjects screened so far. A job whose node stopped is `failed`: change the threshold to start another.',
      access: 'account',
      errors: [404],
      input: JobIdInput,
      output: SubjectJob,
      handler: async (input, ctx) => {
        const job = await rescreens.get(customerOf(ctx.caller), input.id);
        if (!job) throw notFound(`Re-screen job not found: ${input.id}`);
        return jobView(job);
      },
    }),
  ];
}
