import { z } from 'zod';
import { endpoint, type AnyEndpoint, type AuditMatch } from '../../core/endpoint.js';
import { batchItem, ScreenResponse, asOfParam, listsParam } from '../schemas/screen.js';
import { prepareValue, ValueProblem, type PreparedValue } from '../../../engine/normalize/validate.js';
import type { PublishedKind, ScreeningKinds } from '../../core/kinds.js';
import { HTTPValidationError } from '../schemas/errors.js';
import { valueIssue } from '../../core/errors.js';
import {
  auditRows,
  screenPreparedNow,
  screenValue,
  screeningFor,
  SCREENING_HEADERS,
  type ScreenEnvelope,
  type ScreeningDeps,
} from './screen.js';
import { checkBodyRules, toPydanticIssue, valueAt } from '../../core/validation.js';
import { EnsResolver } from '../../ens/resolver.js';
import { screenName, type NameLists, type NameScreening } from './names.js';

/**
 * Batch screening (beyond SPEC.md, for high-volume clients): up to 10,000 values of any kinds in
 * one request, answered as NDJSON, one line per item in input order. An invalid item gets a
 * validation line in its place and costs nothing; the valid ones cost one credit each, and a batch
 * is refused whole when fewer credits remain.
 */

const BATCH_MAX_ITEMS = 10_000;
const BatchLine = z.union([ScreenResponse, HTTPValidationError]);
export type BatchLineT = z.output<typeof BatchLine>;

/** A valid item, its value normalized once for both its validation and its screening. */
interface ValidItem {
  kind: PublishedKind;
  value: string;
  prepared: PreparedValue;
}
/** An item BatchItem refuses, with the value the client sent (for the validation line's `input`). */
interface ItemError {
  error: z.ZodError;
  sent: unknown;
}
/** An ENS name: a valid crypto value that batches do not resolve, so answered (and free) like an invalid one. */
interface EnsName {
  ens: string;
}
/** A name, screened as `/screen/name` screens one. */
interface NameItem {
  name: NameScreening;
}
type Entry = ValidItem | NameItem | ItemError | EnsName;

/**
 * An item as BatchItem would accept it, checked without zod's result objects (10,000 items a
 * request), its value checked (and normalized) by its kind's validator; `null` when zod must
 * judge it, which also yields the exact validation issues. The check is conservative: zod counts
 * a string's length in code points, so a value of more than 512 UTF-16 units may still be valid,
 * and zod decides.
 */
function plainItem(kinds: ScreeningKinds, item: unknown): ValidItem | null {
  if (typeof item !== 'object' || item === null || Array.isArray(item)) return null;
  const { type, value } = item as Record<string, unknown>;
  const kind = typeof type === 'string' ? kinds.named(type) : undefined;
  if (kind === undefined || typeof value !== 'string' || value.length < 1 || value.length > 512) return null;
  let keys = 0;
  for (const _ in item) keys++;
  if (keys !== 2) return null;
  const prepared = prepareValue(kind.rule, value);
  return prepared instanceof ValueProblem ? null : { kind, value, prepared };
}

/** Each item judged once, as the input is parsed: the credit count (gate) and the handler both read the result. */
function parseItem(
  kinds: ScreeningKinds,
  itemSchema: ReturnType<typeof batchItem>,
  item: unknown,
  index: number,
): Entry {
  let valid = plainItem(kinds, item);
  if (!valid) {
    // The body's depth bound, for the items the body's own check leaves to the endpoint (a plain item is flat).
    checkBodyRules(item, false, ['items', index]);
    const judged = itemSchema.safeParse(item);
    if (!judged.success) return { error: judged.error, sent: item };
    // The schema's validator prepared this value last: found again without normalizing.
    const { type, value } = judged.data;
    if (type === 'name')
      return {
        name: {
          name: value.trim(),
          birth_date: judged.data.birth_date,
          country: judged.data.country,
          party_type: judged.data.party_type,
        },
      };
    const kind = kinds.named(type)!;
    valid = { kind, value, prepared: prepareValue(kind.rule, value) as PreparedValue };
  }
  return valid.kind.ens && EnsResolver.isName(valid.value) ? { ens: valid.value } : valid;
}

/** An item that is screened (and costs a credit). */
function isValid(entry: Entry): entry is ValidItem | NameItem {
  return 'prepared' in entry || 'name' in entry;
}

/**
 * The batch's input: the items array mapped to its entries, once the array passed its own checks
 * (a pipe stops at the first issue). zod's core transform, not `.transform()`: the classic one
 * stores a fresh `addIssue` closure on the parse's payload, which made V8 promote the batch being
 * parsed at every scavenge (longer pauses, and an old space full of dead batches until a full
 * collection; docs/performance.md).
 */
function batchInput(kinds: ScreeningKinds) {
  const itemSchema = batchItem(kinds);
  const judgedItems = new z.core.$ZodTransform({
    type: 'transform',
    transform: (items) => (items as unknown[]).map((item, i) => parseItem(kinds, itemSchema, item, i)),
  }) as z.core.$ZodTransform<Entry[], unknown[]>;
  return z.object({
    items: z
      .array(z.unknown())
      .min(1)
      .max(BATCH_MAX_ITEMS)
      .meta({
        description: `1 to ${BATCH_MAX_ITEMS} items {type, value}; type is ${kinds.names.join(', ')} or name (a name item may add birth_date, country and party_type, as /screen/name takes them).`,
      })
      .pipe(judgedItems),
    lists: listsParam,
    as_of: asOfParam,
  });
}

export function batchEndpoint(deps: ScreeningDeps, nameLists: NameLists): AnyEndpoint {
  return endpoint({
    id: 'screen.batch',
    method: 'POST',
    path: '/screen/batch',
    tags: ['screening'],
    summary: 'Screen up to 10,000 values in one request (NDJSON answer)',
    description:
      'The REST answer is `application/x-ndjson`: one ScreenResponse per line in input order; an invalid item gets a line `{"detail":[...]}` in its place. ' +
      'A `name` item is screened as `/screen/name` screens a name (default threshold and limit; without `lists`, the sanctions lists that carry names). ' +
      'Each valid item costs one credit (x402: the price times the number of valid items); the batch is refused whole with 402 when fewer credits remain. ' +
      'ENS names are not resolved in batches (screen them one by one). Over /trpc the answer is the same lines as a JSON array.',
    access: 'metered',
    errors: [400],
    nativeRoute: true,
    input: batchInput(deps.kinds),
    output: z.array(BatchLine),
    credits: (input) => {
      let valid = 0;
      for (const item of input.items) if (isValid(item)) valid++;
      return valid;
    },
    // Each screened item is a ScreenResponse line; an invalid item's line is free.
    deliveredCredits: (lines) => lines.reduce((n, line) => n + ('matches' in line ? 1 : 0), 0),
    headers: SCREENING_HEADERS,
    audit: (_input, out, ctx) => {
      // Only the lines with a match make rows: most have none, and flatMap made an empty array for each.
      const rows: AuditMatch[] = [];
      for (const line of out) {
        if ('matches' in line && line.matches.length > 0) rows.push(...auditRows(line as ScreenEnvelope, ctx.basis));
      }
      return rows;
    },
    handler: async (input, ctx) => {
      const lists = screeningFor(deps, ctx, input.lists, input.as_of, ['body', 'as_of']);
      const nameScreening = nameLists.narrow(lists, input.lists);
      const items = input.items;
      const out = new Array<BatchLineT>(items.length);
      for (let i = 0; i < items.length; i++) {
        const entry = items[i];
        if ('ens' in entry) {
          const error = 'ENS names are not resolved in batches';
          out[i] = { detail: [valueIssue(['body', 'items', i, 'value'], error, entry.ens)] };
          continue;
        }
        if (!isValid(entry)) {
          out[i] = {
            detail: entry.error.issues.map((issue) =>
              toPydanticIssue(
                issue,
                ['body', 'items', i, ...issue.path.map((p) => (typeof p === 'number' ? p : String(p)))],
                valueAt(entry.sent, issue.path),
              ),
            ),
          };
          continue;
        }
        if ('name' in entry) {
          out[i] = await screenName(deps, entry.name, nameScreening);
          continue;
        }
        // Exact kinds answer synchronously: no promise per item.
        const { kind, value, prepared } = entry;
        out[i] =
          screenPreparedNow(deps, kind.rule, prepared, value, lists) ??
          (await screenValue(deps, kind.rule, value, lists));
      }
      return out;
    },
  });
}
