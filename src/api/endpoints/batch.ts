import { z } from 'zod';
import { endpoint, type AnyEndpoint, type AuditMatch } from '../../core/endpoint.js';
import { BatchItem, ScreenResponse, listsParam } from '../schemas/screen.js';
import { HTTPValidationError } from '../schemas/errors.js';
import { auditRows, screenValue, screenValueNow, type ScreenEnvelope, type ScreeningDeps } from './screen.js';
import { toPydanticIssue, valueAt } from '../../core/validation.js';
import { EnsResolver } from '../../ens/resolver.js';
import { screenName, type NameLists } from './names.js';

/**
 * Batch screening (beyond SPEC.md, for high-volume clients): up to 10,000 values of any kinds in
 * one request, answered as NDJSON, one line per item in input order. An invalid item gets a
 * validation line in its place and costs nothing; the valid ones cost one credit each, and a batch
 * is refused whole when fewer credits remain.
 */

const BATCH_MAX_ITEMS = 10_000;
const BatchLine = z.union([ScreenResponse, HTTPValidationError]);
export type BatchLineT = z.output<typeof BatchLine>;

type Item = z.output<typeof BatchItem>;
/** An item BatchItem refuses, with the value the client sent (for the validation line's `input`). */
interface ItemError {
  error: z.ZodError;
  sent: unknown;
}
const ITEM_TYPES = new Set<string>(BatchItem.shape.type.options);

/**
 * An item as BatchItem would accept it, checked without zod's result objects (10,000 items a
 * request); `null` when zod must judge it, which also yields the exact validation issues. The
 * check is conservative: zod counts a string's length in code points, so a value of more than
 * 512 UTF-16 units may still be valid, and zod decides.
 */
function plainItem(item: unknown): Item | null {
  if (typeof item !== 'object' || item === null || Array.isArray(item)) return null;
  const { type, value } = item as Record<string, unknown>;
  if (typeof type !== 'string' || !ITEM_TYPES.has(type) || type === 'name' || typeof value !== 'string' || value.length < 1 || value.length > 512) return null;
  let keys = 0;
  for (const _ in item) keys++;
  return keys === 2 ? (item as Item) : null;
}

/** Each item judged once, as the input is parsed: the credit count (gate) and the handler both read the result. */
function parseItem(item: unknown): Item | ItemError {
  const plain = plainItem(item);
  if (plain) return plain;
  const judged = BatchItem.safeParse(item);
  return judged.success ? judged.data : { error: judged.error, sent: item };
}

function isError(entry: Item | ItemError): entry is ItemError {
  return 'error' in entry;
}

const BatchInput = z.object({
  items: z
    .array(z.unknown())
    .min(1)
    .max(BATCH_MAX_ITEMS)
    .meta({
      description: `1 to ${BATCH_MAX_ITEMS} items {type, value}; type is crypto, email, website, id, country or name (a name item may add birth_date, country and party_type, as /screen/name takes them).`,
    })
    .transform((items) => items.map(parseItem)),
  lists: listsParam,
});

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
    input: BatchInput,
    output: z.array(BatchLine),
    credits: (input) => {
      let valid = 0;
      for (const item of input.items) if (!isError(item)) valid++;
      return valid;
    },
    audit: (_input, out) => out.flatMap((line): AuditMatch[] => ('matches' in line ? auditRows(line as ScreenEnvelope) : [])),
    handler: async (input) => {
      const lists = deps.catalog.resolve(input.lists);
      const items = input.items;
      const out = new Array<BatchLineT>(items.length);
      for (let i = 0; i < items.length; i++) {
        const parsed = items[i];
        if (isError(parsed)) {
          out[i] = {
            detail: parsed.error.issues.map((issue) =>
              toPydanticIssue(issue, ['body', 'items', i, ...issue.path.map((p) => (typeof p === 'number' ? p : String(p)))], valueAt(parsed.sent, issue.path)),
            ),
          };
          continue;
        }
        const { type, value } = parsed;
        if (type === 'name') {
          out[i] = await screenName(deps, { name: value.trim(), birth_date: parsed.birth_date, country: parsed.country, party_type: parsed.party_type }, nameLists.resolve(input.lists));
          continue;
        }
        if (type === 'crypto' && EnsResolver.isName(value)) {
          out[i] = { detail: [{ type: 'value_error', loc: ['body', 'items', i, 'value'], msg: 'Value error, ENS names are not resolved in batches', input: value, ctx: { error: 'ENS names are not resolved in batches' } }] };
          continue;
        }
        // Exact kinds answer synchronously: no promise per item.
        out[i] = screenValueNow(deps, type, value, lists) ?? (await screenValue(deps, type, value, lists));
      }
      return out;
    },
  });
}
