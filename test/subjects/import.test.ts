import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createCustomerToken, startTestService, testEnv, type TestService } from '../../harness/service.js';
import { OpenApiChecker } from '../support/openapi.js';
import { cli } from '../support/cli.js';

/**
 * Issue #39, bulk imports (docs/monitoring.md "Imports"): bad rows deep in a file are refused with
 * their line and reason and the others taken; a listed name among many unlisted ones opens one
 * alert with its subject; an import is refused whole (402) when fewer credits remain than it has
 * rows; a re-import of the same file charges nothing; CSV and NDJSON; the CLI end to end.
 */
let svc: TestService;
let api: OpenApiChecker;

before(async () => {
  svc = await startTestService({ SUBJECT_IMPORT_MAX_ROWS: '6000' });
  api = await OpenApiChecker.load(svc.url);
});
after(async () => {
  await svc?.close();
});

type Job = {
  id: number;
  state: string;
  rows_read: number;
  taken: number;
  refused: number;
  refused_rows: { line: number; reason: string }[];
  alerts_opened: number;
  error: string | null;
};
const url = (path: string) => `${svc.url}/api/v1${path}`;
const authOf = (token: string) => ({ authorization: `Bearer ${token}` });

async function postImport(token: string, contentType: string, body: string) {
  return api.fetchJson(url('/account/subjects/import'), {
    method: 'POST',
    headers: { ...authOf(token), 'content-type': contentType },
    body,
  });
}

/** Imports `body` and waits for the job's end (polling its Location): the finished job. */
async function imported(token: string, contentType: string, body: string): Promise<Job> {
  const answer = await postImport(token, contentType, body);
  assert.equal(answer.status, 202, JSON.stringify(answer.body));
  const first = answer.body as Job;
  assert.equal(first.state, 'running');
  const location = answer.headers.get('location');
  assert.equal(location, `/api/v1/account/subjects/imports/${first.id}`);
  for (;;) {
    const polled = await api.fetchJson(`${svc.url}${location}`, { headers: authOf(token) });
    assert.equal(polled.status, 200, JSON.stringify(polled.body));
    const job = polled.body as Job;
    if (job.state !== 'running') return job;
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function creditsUsed(token: string): Promise<number> {
  const answer = await api.fetchJson(url('/account'), { headers: authOf(token) });
  return (answer.body as { quota: { used: number } }).quota.used;
}

/** Names on no list: syllables of no language, so that none matches a listed party. */
function unlistedName(i: number): string {
  const s = ['qo', 'vu', 'zy', 'xe', 'fy', 'wu', 'jo', 'ky'];
  const word = (n: number) => `${s[n % 8]}${s[(n >> 3) % 8]}${s[(n >> 6) % 8]}x`;
  return `${word(i)} ${word(i * 7 + 3)}`;
}

const ndjsonRow = (i: number) =>
  JSON.stringify({ external_id: `N-${i}`, type: 'person', names: [unlistedName(i)], countries: ['DE'] });

test('NDJSON: bad rows 7 and 4,998 of 5,000 are refused with line and reason, the others taken and charged once', async () => {
  const c = await createCustomerToken(svc.url, 20_000, 'Import NDJSON');
  const lines: string[] = [];
  for (let i = 1; i <= 5000; i++) lines.push(ndjsonRow(i));
  lines[6] = JSON.stringify({ external_id: 'N-7', type: 'person', names: [] });
  lines[4997] = JSON.stringify({ external_id: 'N-4998', names: ['Qovux Zyfyx'], birth_date: '1990-13-45' });
  const body = lines.join('\n') + '\n';

  const job = await imported(c.token, 'application/x-ndjson', body);
  assert.equal(job.state, 'done', JSON.stringify(job));
  assert.deepEqual([job.rows_read, job.taken, job.refused, job.alerts_opened], [5000, 4998, 2, 0]);
  assert.deepEqual(job.refused_rows, [
    { line: 7, reason: 'names: Too small: expected array to have >=1 items' },
    { line: 4998, reason: 'birth_date: not a calendar date' },
  ]);
  assert.equal(await creditsUsed(c.token), 4998);

  const again = await imported(c.token, 'application/x-ndjson', body);
  assert.deepEqual([again.state, again.taken, again.refused], ['done', 4998, 2]);
  assert.equal(await creditsUsed(c.token), 4998, 'a re-import of the same file charges nothing');

  const listed = await api.fetchJson(url('/account/subjects?q=n-4999'), { headers: authOf(c.token) });
  assert.equal(listed.status, 200, JSON.stringify(listed.body));
  const [s] = (listed.body as { subjects: { external_id: string; names: string[] }[] }).subjects;
  assert.deepEqual([s.external_id, s.names], ['N-4999', [unlistedName(4999)]]);
});

test('CSV: a listed name planted among 3,000 unlisted ones opens one alert with the subject', async () => {
  const c = await createCustomerToken(svc.url, 10_000, 'Import CSV');
  const rows = ['external_id,type,names,birth_date,countries,identifiers,crypto,email,website'];
  for (let i = 1; i <= 3000; i++) rows.push(`C-${i},person,"${unlistedName(i)}",,FR,,,,`);
  rows[1500] = 'C-1500,person,THARWAT SALAH SHIHATA|Tharwat Shehata,1960-06-29,EG,,,,';
  const job = await imported(c.token, 'text/csv', rows.join('\r\n'));
  assert.equal(job.state, 'done', JSON.stringify(job));
  assert.deepEqual([job.rows_read, job.taken, job.refused, job.alerts_opened], [3000, 3000, 0, 1]);

  const alerts = await api.fetchJson(url('/account/alerts'), { headers: authOf(c.token) });
  assert.equal(alerts.status, 200, JSON.stringify(alerts.body));
  const items = (alerts.body as { items: { subject: unknown; list: string }[] }).items;
  assert.equal(items.length, 1, JSON.stringify(items));
  assert.deepEqual(items[0].subject, {
    external_id: 'C-1500',
    type: 'person',
    names: ['THARWAT SALAH SHIHATA', 'Tharwat Shehata'],
  });
  assert.equal(await creditsUsed(c.token), 3000);
});

test('CSV cells: several names, countries, identifiers and values; a duplicate external id: the last row wins', async () => {
  const c = await createCustomerToken(svc.url, 100, 'Import cells');
  const body = [
    'external_id,names,countries,identifiers,email,type',
    'X-1,"Qovux Zyfyx|Vuzyx, Qo",DE|france,passport:X1234567|99887766,a@qovux.example,person',
    'X-2,Jokyx Fywux,,,,organization',
    'X-1,Qovux Zyfyx,DE,,,person',
    'X-3,Jokyx Fywux,,,,starship',
    'X-4,"unclosed,,,,',
  ].join('\n');
  const job = await imported(c.token, 'text/csv', body);
  assert.equal(job.state, 'done', JSON.stringify(job));
  assert.deepEqual([job.rows_read, job.taken, job.refused], [5, 3, 2]);
  assert.deepEqual(
    job.refused_rows.map((r) => r.line),
    [5, 6],
  );
  assert.deepEqual(
    job.refused_rows.map((r) => r.reason),
    [
      'type: Invalid option: expected one of "person"|"organization"|"vessel"|"aircraft"|"unknown"',
      'a quoted CSV field is not closed on its line',
    ],
  );
  const one = await api.fetchJson(url('/account/subjects/X-1'), { headers: authOf(c.token) });
  assert.equal(one.status, 200, JSON.stringify(one.body));
  const s = one.body as { names: string[]; countries: string[]; identifiers: unknown[] };
  assert.deepEqual([s.names, s.countries, s.identifiers], [['Qovux Zyfyx'], ['DE'], []]);
});

test('fewer credits than rows: 402 and nothing stored; exactly enough: taken', async () => {
  const c = await createCustomerToken(svc.url, 10, 'Import poor');
  const rows = (n: number) => Array.from({ length: n }, (_, i) => ndjsonRow(i + 1)).join('\n');
  const refused = await postImport(c.token, 'application/x-ndjson', rows(11));
  assert.equal(refused.status, 402, JSON.stringify(refused.body));
  assert.match(JSON.stringify(refused.body), /the import has 11 rows and 10 credits remain/);
  const none = await api.fetchJson(url('/account/subjects'), { headers: authOf(c.token) });
  assert.deepEqual((none.body as { subjects: unknown[] }).subjects, []);
  assert.equal(await creditsUsed(c.token), 0);

  const job = await imported(c.token, 'application/x-ndjson', rows(10));
  assert.deepEqual([job.state, job.taken], ['done', 10]);
  assert.equal(await creditsUsed(c.token), 10);
});

test('more rows than SUBJECT_IMPORT_MAX_ROWS: 413 and nothing stored or charged', async () => {
  const c = await createCustomerToken(svc.url, 10_000, 'Import large');
  const body = Array.from({ length: 6001 }, (_, i) => ndjsonRow(i + 1)).join('\n');
  const refused = await postImport(c.token, 'application/x-ndjson', body);
  assert.equal(refused.status, 413, JSON.stringify(refused.body));
  assert.deepEqual(refused.body, { detail: 'Too many rows: an import holds at most 6000 rows; split the file' });
  const none = await api.fetchJson(url('/account/subjects'), { headers: authOf(c.token) });
  assert.deepEqual((none.body as { subjects: unknown[] }).subjects, []);
  assert.equal(await creditsUsed(c.token), 0);
});

test('another customer’s import job is a 404; a bad content type a 415', async () => {
  const a = await createCustomerToken(svc.url, 10, 'Import A');
  const b = await createCustomerToken(svc.url, 10, 'Import B');
  const job = await imported(a.token, 'application/x-ndjson', ndjsonRow(1));
  const other = await api.fetchJson(url(`/account/subjects/imports/${job.id}`), { headers: authOf(b.token) });
  assert.equal(other.status, 404);
  const wrong = await postImport(a.token, 'application/json', '[]');
  assert.equal(wrong.status, 415);
});

test('cli subjects import FILE --customer N: imports through the running service and prints the job', async () => {
  const c = await createCustomerToken(svc.url, 4, 'Import CLI');
  const file = join(svc.dataDir, 'book.csv');
  writeFileSync(
    file,
    `external_id,names,birth_date\nK-1,Qovux Zyfyx,1980\nK-2,Jokyx Fywux,not a date\nK-3,Vuzyx Qox,\n`,
  );
  const env = testEnv(svc.dataDir) as Record<string, string>;
  const run = await cli(['subjects', 'import', file, '--customer', String(c.customerId)], env);
  assert.equal(run.code, 0, run.stderr);
  const [head, counts, refusedLine] = run.stdout.trim().split('\n');
  assert.match(head, /^import job \d+: done$/);
  assert.equal(counts, 'rows read 3, taken 2, refused 1, alerts opened 0');
  assert.match(refusedLine, /^ {2}line 3: birth_date: /);
  assert.equal(await creditsUsed(c.token), 2);

  const poor = await cli(['subjects', 'import', file, '--customer', String(c.customerId)], env);
  assert.equal(poor.code, 1);
  assert.match(poor.stderr, /import refused: 402 .*the import has 3 rows and 2 credits remain/);
  assert.equal(poor.stdout, '');
});
