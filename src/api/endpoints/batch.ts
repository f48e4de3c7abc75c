import { z } from 'zod';
import { endpoint, type AnyEndpoint, type AuditMatch } from '../../core/endpoint.js';
import { BatchItem, ScreenResponse, listsParam } from '../schemas/screen.js';
import { prepareValue, ValueProblem, type PreparedValue } from '../../../engine/normalize/validate.js';
import { HTTPValidationError } from '../schemas/errors.js';
import { auditRows, screenPreparedNow, screenValue, type ScreenEnvelope, type ScreeningDeps } from './screen.js';
import { checkBodyRules, toPydanticIssue, valueAt } from '../../core/validation.js';
import { EnsResolver } from '../../ens/resolver.js';

/**
 * Batch screening (beyond SPEC.md, for high-volume clients): up to 10,000 values of any kinds in
 * one request, answered as NDJSON, one line per item in input order. An invalid item gets a
 * validation line in its place and costs nothing; the valid ones cost one credit each, and a batch
 * is refused whole when fewer credits remain.
 */

export const BATCH_MAX_ITEMS = 10_000;
const BatchLine = z.union([ScreenResponse, HTTPValidationError]);
export type BatchLineT = z.output<typeof BatchLine>;

const BatchInput = z.object({
  items: z.array(z.unknown()).min(1).max(BATCH_MAX_ITEMS).meta({ description: `1 to ${BATCH_MAX_ITEMS} items {type, value}; type is crypto, email, website, id or country.` }),
  lists: listsParam,
});

type Item = z.output<typeof BatchItem>;
type ItemError = z.ZodSafeParseError<unknown>;
/** An ENS name: a valid crypto value that batches do not resolve, so answered (and free) like an invalid one. */
const ENS_NAME = Symbol('ENS name');
/** A valid item's value normalized once, for both its validation and its screening. */
type Entry = PreparedValue | ItemError | typeof ENS_NAME;
const ITEM_TYPES = new Set<string>(BatchItem.shape.type.options);

/**
 * An item as BatchItem would accept it, checked without zod's result objects (10,000 items a
 * request), its value checked (and normalized) by its kind's validator; `null` when zod must
 * judge it, which also yields the exact validation issues. The check is conservative: zod counts
 * a string's length in code points, so a value of more than 512 UTF-16 units may still be valid,
 * and zod decides.
 */
function plainItem(item: unknown): PreparedValue | null {
  if (typeof item !== 'object' || item === null || Array.isArray(item)) return null;
  const { type, value } = item as Record<string, unknown>;
  if (typeof type !== 'string' || !ITEM_TYPES.has(type) || typeof value !== 'string' || value.length < 1 || value.length > 512) return null;
  let keys = 0;
  for (const _ in item) keys++;
  if (keys !== 2) return null;
  const prepared = prepareValue(type as Item['type'], value);
  return prepared instanceof ValueProblem ? null : prepared;
}

function entry(item: unknown, index: number): Entry {
  let prepared = plainItem(item);
  if (!prepared) {
    // The body's depth bound, for the items the body's own check leaves to the endpoint (a plain item is flat).
    checkBodyRules(item, false, ['items', index]);
    const judged = BatchItem.safeParse(item);
    if (!judged.success) return judged;
    // The schema's validator prepared this value last: found again without normalizing.
    prepared = prepareValue(judged.data.type, judged.data.value) as PreparedValue;
  }
  const { type, value } = item as Item;
  return type === 'crypto' && EnsResolver.isName(value) ? ENS_NAME : prepared;
}

/** Each item validated once per request: the credit count (gate) and the handler both need it. */
const parsedItems = new WeakMap<unknown[], Entry[]>();
function parseItems(items: unknown[]): Entry[] {
  let parsed = parsedItems.get(items);
  if (!parsed) {
    parsed = items.map(entry);
    parsedItems.set(items, parsed);
  }
  return parsed;
}

function isValid(e: Entry): e is PreparedValue {
  return typeof e === 'string' || (typeof e === 'object' && !('error' in e));
}

function validItems(items: unknown[]): number {
  let n = 0;
  for (const p of parseItems(items)) if (isValid(p)) n++;
  return n;
}

export function batchEndpoint(deps: ScreeningDeps): AnyEndpoint {
  return endpoint({
    id: 'screen.batch',
    method: 'POST',
    path: '/screen/batch',
    tags: ['screening'],
    summary: 'Screen up to 10,000 values in one request (NDJSON answer)',
    description:
      'The REST answer is `application/x-ndjson`: one ScreenResponse per line in input order; an invalid item gets a line `{"detail":[...]}` in its place. ' +
      'Each valid item costs one credit (x402: the price times the number of valid items); the batch is refused whole with 402 when fewer credits remain. ' +
      'ENS names are not resolved in batches (screen them one by one). Over /trpc the answer is the same lines as a JSON array.',
    access: 'metered',
    errors: [400],
    nativeRoute: true,
    input: BatchInput,
    output: z.array(BatchLine),
    credits: (input) => validItems(input.items),
    // Each screened item is a ScreenResponse line; an invalid item's line is free.
    deliveredCredits: (lines) => lines.reduce((n, line) => n + ('matches' in line ? 1 : 0), 0),
    audit: (_input, out) => out.flatMap((line): AuditMatch[] => ('matches' in line ? auditRows(line as ScreenEnvelope) : [])),
    handler: async (input) => {
      const lists = deps.catalog.resolve(input.lists);
      const out: BatchLineT[] = new Array(input.items.length);
      const items = parseItems(input.items);
      for (let i = 0; i < input.items.length; i++) {
        const parsed = items[i];
        if (parsed === ENS_NAME) {
          const value = (input.items[i] as Item).value;
          out[i] = { detail: [{ type: 'value_error', loc: ['body', 'items', i, 'value'], msg: 'Value error, ENS names are not resolved in batches', input: value, ctx: { error: 'ENS names are not resolved in batches' } }] };
          continue;
        }
        if (!isValid(parsed)) {
          out[i] = {
            detail: parsed.error.issues.map((issue) =>
              toPydanticIssue(issue, ['body', 'items', i, ...issue.path.map((p) => (typeof p === 'number' ? p : String(p)))], valueAt(input.items[i], issue.path)),
            ),
          };
          continue;
        }
        // Exact kinds answer synchronously: no promise per item.
        const { type, value } = input.items[i] as Item;
        out[i] = screenPreparedNow(deps, type, parsed, value, lists) ?? (await screenValue(deps, type, value, lists));
      }
      return out;
    },
  });
}
