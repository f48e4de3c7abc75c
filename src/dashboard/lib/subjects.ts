import { ApiError, call, client, type Schemas } from './api';

/** The customer's book of subjects (`/account/subjects`) as the dashboard reads and imports it. */

/** Countries are stored as alpha-2 codes; the input schema's transform leaves them untyped in the document. */
export type Subject = Omit<Schemas['Subject'], 'countries'> & { countries: string[] };
export type SubjectType = Subject['type'];
export type SubjectJob = Schemas['SubjectJob'];

export const SUBJECT_TYPE_LABEL: Record<SubjectType, string> = {
  person: 'Person',
  organization: 'Organization',
  vessel: 'Vessel',
  aircraft: 'Aircraft',
  unknown: 'Unknown',
};

/** The list's filters as the form holds them (strings: empty means "any"). */
export interface BookFilter {
  q: string;
  type: SubjectType | '';
  country: string;
  has_alerts: '' | 'yes' | 'no';
}

export const NO_BOOK_FILTER: BookFilter = { q: '', type: '', country: '', has_alerts: '' };

export const BOOK_PAGE = 50;

/** A page of subjects of the filter. */
export function listSubjects(
  f: BookFilter,
  cursor: string | undefined,
): Promise<{ subjects: Subject[]; next_cursor: string | null }> {
  return call(
    client.GET('/api/v1/account/subjects', {
      params: {
        query: {
          q: f.q.trim() || undefined,
          type: f.type || undefined,
          country: f.country.trim() || undefined,
          has_alerts: f.has_alerts === '' ? undefined : f.has_alerts === 'yes',
          limit: BOOK_PAGE,
          cursor,
        },
      },
    }),
  ) as Promise<{ subjects: Subject[]; next_cursor: string | null }>;
}

export async function getSubject(externalId: string): Promise<Subject> {
  try {
    return (await call(
      client.GET('/api/v1/account/subjects/{external_id}', { params: { path: { external_id: externalId } } }),
    )) as Subject;
  } catch (err) {
    if (err instanceof ApiError && err.status === 404)
      throw new Error('No subject of your book has this reference: it was deleted, or never imported.', {
        cause: err,
      });
    throw err;
  }
}

export async function deleteSubject(externalId: string): Promise<void> {
  await call(
    client.DELETE('/api/v1/account/subjects/{external_id}', { params: { path: { external_id: externalId } } }),
  );
}

/** The import formats the API takes, chosen from the file's name. */
const FORMATS: { type: string; ext: RegExp; header: boolean }[] = [
  { type: 'text/csv', ext: /\.csv$/i, header: true },
  { type: 'application/x-ndjson', ext: /\.(ndjson|jsonl)$/i, header: false },
];

export const IMPORT_ACCEPT = '.csv,.ndjson,.jsonl';

export function importFormat(name: string): { type: string; header: boolean } | null {
  return FORMATS.find((f) => f.ext.test(name)) ?? null;
}

/**
 * The rows a file holds (its lines that are not blank, less a CSV's header, as the server counts
 * them): the server counts the rows it has read but not the rows to come, so the progress bar
 * measures against this. Read a chunk at a time, so a file of a million rows is never held whole.
 */
export async function countRows(file: Blob, header: boolean): Promise<number> {
  const reader = file.stream().getReader();
  let rows = 0;
  let filled = false;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    for (const byte of value) {
      if (byte === 10) {
        if (filled) rows++;
        filled = false;
      } else if (byte !== 13 && byte !== 32 && byte !== 9) filled = true;
    }
  }
  if (filled) rows++;
  return Math.max(0, rows - (header ? 1 : 0));
}

/** Starts an import of `file` (the API answers 202 with the job at once). */
export async function startImport(file: File, type: string): Promise<SubjectJob> {
  try {
    return await call(
      client.POST('/api/v1/account/subjects/import', {
        body: file as unknown as string,
        bodySerializer: (b: unknown) => b as BodyInit,
        headers: { 'Content-Type': type },
      }),
    );
  } catch (err) {
    if (err instanceof ApiError && err.status === 402)
      throw new ApiError(402, `Not enough credits for this import: nothing was imported. ${err.message}`);
    throw err;
  }
}

export function importJob(id: number): Promise<SubjectJob> {
  return call(client.GET('/api/v1/account/subjects/imports/{id}', { params: { path: { id } } }));
}

export const POLL_MS = 1000;
