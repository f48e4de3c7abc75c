import { z } from 'zod';
import { endpoint, type AnyEndpoint, type AuditMatch } from '../../core/endpoint.js';
import { BatchItem, ScreenResponse, asOfParam, listsParam } from '../schemas/screen.js';
import { HTTPValidationError } from '../schemas/errors.js';
import { auditRows, screenValue, screenValueNow, screeningFor, SCREENING_HEADERS, type ScreenEnvelope, type ScreeningDeps } from './screen.js';
import { toPydanticIssue, valueAt } from '../../core/validation.js';
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
  as_of: asOfParam,
});

type Item = z.output<typeof BatchItem>;
type ItemError = z.ZodSafeParseError<unknown>;
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
  if (typeof type !== 'string' || !ITEM_TYPES.has(type) || typeof value !== 'string' || value.length < 1 || value.length > 512) return null;
  let keys = 0;
  for (const _ in item) keys++;
  return keys === 2 ? (item as Item) : null;
}

/** Each item validated once per request: the credit count (gate) and the handler both need it. */
const parsedItems = new WeakMap<unknown[], (Item | ItemError)[]>();
function parseItems(items: unknown[]): (Item | ItemError)[] {
  let parsed = parsedItems.get(items);
  if (!parsed) {
    parsed = items.map((item) => {
      const plain = plainItem(item);
      if (plain) return plain;
      const judged = BatchItem.safeParse(item);
      return judged.success ? judged.data : judged;
    });
    parsedItems.set(items, parsed);
  }
  return parsed;
}

function isError(entry: Item | ItemError): entry is ItemError {
  return 'error' in entry;
}

function validItems(items: unknown[]): number {
  let n = 0;
  for (const p of parseItems(items)) if (!isError(p)) n++;
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
    headers: SCREENING_HEADERS,
    credits: (input) => validItems(input.items),
    audit: (_input, out, ctx) => out.flatMap((line): AuditMatch[] => ('matches' in line ? auditRows(line as ScreenEnvelope, ctx.basis) : [])),
    handler: async (input, ctx) => {
      const lists = screeningFor(deps, ctx, input.lists, input.as_of, ['body', 'as_of']);
      const out: BatchLineT[] = new Array(input.items.length);
      const items = parseItems(input.items);
      for (let i = 0; i < input.items.length; i++) {
        const parsed = items[i];
        if (isError(parsed)) {
          out[i] = {
            detail: parsed.error.issues.map((issue) =>
              toPydanticIssue(issue, ['body', 'items', i, ...issue.path.map((p) => (typeof p === 'number' ? p : String(p)))], valueAt(input.items[i], issue.path)),
            ),
          };
          continue;
        }
        const { type, value } = parsed;
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
