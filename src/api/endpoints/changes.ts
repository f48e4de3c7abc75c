import { z } from 'zod';
import type { ChangeRow, ChangesQuery } from '../../audit/queries.js';
import { endpoint, RawResponse, type AnyEndpoint } from '../../core/endpoint.js';
import { badRequest, valueError } from '../../core/errors.js';
import type { RateLimiter } from '../../core/rate-limit.js';
import type { ListCatalog } from '../../lists/catalog.js';
import { ChangesPage, changesFilter } from '../schemas/lists.js';
import { listsParam } from '../schemas/screen.js';
import { csvChunks } from '../csv.js';

/**
 * The changes feed: every listed, delisted and relisted change, in the service's ingest
 * sequence. Pages are keyset-paginated on that sequence, so a cursor stays valid while new
 * versions are ingested and pages never overlap or skip: the sinks receive changes in sequence
 * order, so what is stored is always a prefix of the sequence (loaders/manager.ts).
 */

export interface ChangesDeps {
  catalog: ListCatalog;
  changes: (q: ChangesQuery) => Promise<ChangeRow[]>;
}

const ChangesInput = z.object({ lists: listsParam, ...changesFilter });
type ChangesInputT = z.output<typeof ChangesInput>;

/** Columns of the CSV page, in order. */
const CHANGES_CSV_COLUMNS = [
  'change_id',
  'kind',
  'list',
  'list_version',
  'entity_type',
  'value',
  'metadata',
  'source_url',
  'at',
] as const;

/** `next_cursor`: the sequence number of the last change read, opaque to clients. */
function encodeCursor(seq: number): string {
  return Buffer.from(`s:${seq}`).toString('base64url');
}

function decodeCursor(cursor: string): number | null {
  const m = /^s:(\d{1,15})$/.exec(Buffer.from(cursor, 'base64url').toString('latin1'));
  return m && encodeCursor(Number(m[1])) === cursor ? Number(m[1]) : null;
}

const words = (s: string | undefined) =>
  s === undefined
    ? undefined
    : [
        ...new Set(
          s
            .split(',')
            .map((x) => x.trim())
            .filter(Boolean),
        ),
      ];

/**
 * One page of the feed of `owner`'s lists (0: the public ones) restricted to `lists` (undefined:
 * all of them), as JSON or CSV.
 */
export async function changesPage(
  deps: ChangesDeps,
  owner: number,
  lists: readonly string[] | undefined,
  input: ChangesInputT,
): Promise<z.output<typeof ChangesPage> | RawResponse> {
  let after = 0;
  if (input.cursor !== undefined) {
    const seq = decodeCursor(input.cursor);
    if (seq === null)
      throw valueError(['query', 'cursor'], 'not a cursor of this feed (use next_cursor of a page)', input.cursor);
    after = seq;
  }
  const kinds = words(input.kinds);
  const entityTypes = words(input.entity_types);
  const rows = await deps.changes({
    owner,
    after,
    limit: input.limit + 1,
    lists,
    kinds: kinds?.length ? kinds : undefined,
    entityTypes: entityTypes?.length ? entityTypes : undefined,
    since: input.since === undefined ? undefined : Date.parse(input.since),
  });
  const hasMore = rows.length > input.limit;
  const page = hasMore ? rows.slice(0, input.limit) : rows;
  const next = encodeCursor(page.length > 0 ? page[page.length - 1].seq : after);
  if (input.format === 'csv') {
    const rows = page.map((c) => [
      c.change_id,
      c.kind,
      c.list,
      c.version,
      c.entity_type,
      c.value,
      JSON.stringify(c.metadata),
      c.source_url ?? '',
      c.at,
    ]);
    return new RawResponse('text/csv; charset=utf-8', csvChunks(CHANGES_CSV_COLUMNS, rows), {
      'X-Next-Cursor': next,
      'X-Has-More': String(hasMore),
    });
  }
  return {
    changes: page.map((c) => {
      const label = deps.catalog.labels.get(c.list);
      return {
        change_id: c.change_id,
        kind: c.kind,
        list: c.list,
        list_name: label?.list_name ?? c.list,
        list_type: label?.list_type ?? 'risk',
        list_version: c.version,
        entity_type: c.entity_type as z.output<typeof ChangesPage>['changes'][number]['entity_type'],
        value: c.value,
        metadata: c.metadata,
        source_url: c.source_url,
        at: c.at,
      };
    }),
    next_cursor: next,
    has_more: hasMore,
  };
}

export function changesEndpoint(deps: ChangesDeps & { limiter: RateLimiter }): AnyEndpoint {
  return endpoint({
    id: 'changes',
    method: 'GET',
    path: '/changes',
    tags: ['lists'],
    summary: 'The changes feed: values listed, delisted and relisted on the public lists',
    description:
      'Every change of the public lists in ingest order, with the list version that made it. Page with `cursor` (the `next_cursor` of the previous page): ' +
      'pages never overlap or skip, also while new versions arrive, so polling with the last `next_cursor` returns exactly what is new. ' +
      'Filters: `lists`, `kinds`, `entity_types`, `since`. `format=csv` gives the page as CSV (columns ' +
      `${CHANGES_CSV_COLUMNS.join(', ')}) with \`X-Next-Cursor\` and \`X-Has-More\` headers. Burst-limited per client IP (429 with Retry-After).`,
    access: 'public',
    errors: [400, 429],
    input: ChangesInput,
    output: ChangesPage,
    headers: { 'X-Next-Cursor': 'CSV only: the next cursor.', 'X-Has-More': 'CSV only: whether more changes follow.' },
    handler: (input, ctx) => {
      deps.limiter.take(ctx.meta.clientIp);
      const named = words(input.lists);
      let lists: readonly string[] | undefined;
      if (named && named.length > 0) {
        const unknown = named.filter((s) => !deps.catalog.labels.has(s) || deps.catalog.isPrivate(s));
        if (unknown.length > 0)
          throw badRequest(
            `unknown list${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')} (see /api/v1/screen/lists)`,
          );
        lists = named;
      }
      return changesPage(deps, 0, lists, input);
    },
  });
}
