import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { parse } from 'csv-parse/sync';
import { startTestService, createCustomerToken, type TestService } from '../../harness/service.js';

/**
 * Every CSV the service writes goes through one writer with one formula guard (src/api/csv.ts). A
 * screened value such as `=1+1@mailinator.com` reaches the audit trail as the customer typed it;
 * exported, its cell must not start with `=` (a spreadsheet would evaluate it): it is `'=1+1...`,
 * quoted, as in the list download.
 */
let svc: TestService;

before(async () => {
  svc = await startTestService();
});
after(async () => {
  await svc?.close();
});

test('audit export: a screened value starting with = is written with the formula guard', async () => {
  const { token } = await createCustomerToken(svc.url, 10);
  const auth = { authorization: `Bearer ${token}` };
  const hostile = '=1+1@mailinator.com';
  const screened = await fetch(`${svc.url}/api/v1/screen/email/${encodeURIComponent(hostile)}?lists=disposable_email`, {
    headers: auth,
  });
  assert.equal(screened.status, 200);
  assert.deepEqual(
    ((await screened.json()) as { matches: { value: string; match: string }[] }).matches.map((m) => [m.value, m.match]),
    [['mailinator.com', 'domain']],
  );
  await svc.service.audit.matches.flush();

  const res = await fetch(`${svc.url}/api/v1/account/audit/export`, { headers: auth });
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('content-type'), 'text/csv; charset=utf-8');
  const text = await res.text();
  const lines = text.split('\r\n');
  assert.equal(
    lines[0],
    'time,request_id,endpoint,screened_value,matched_value,list,list_type,match,list_version,as_of',
  );
  assert.match(
    lines[1],
    /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z,[^,]+,screen\.email,"'=1\+1@mailinator\.com",mailinator\.com,disposable_email,risk,domain,[0-9a-f]{16},$/,
  );
  assert.deepEqual(lines.slice(2), ['']);
  const records = parse(text, { columns: true }) as Record<string, string>[];
  assert.deepEqual(
    records.map((r) => r.screened_value),
    ["'=1+1@mailinator.com"],
  );
});

test('list download: the same writer (header, CRLF, quoting where needed)', async () => {
  const res = await fetch(`${svc.url}/api/v1/screen/lists/disposable_email/entities?format=csv&limit=3`);
  assert.equal(res.status, 200);
  const lines = (await res.text()).split('\r\n');
  assert.equal(lines[0], 'entity_type,value,listed_at,source_url,metadata');
  assert.equal(lines.length, 5);
  for (const line of lines.slice(1, 4))
    assert.match(line, /^email_domain,[a-z0-9.-]+,\d{4}-\d\d-\d\dT[\d:.]+Z,https:\/\/[^,]+,\{\}$/);
  assert.equal(lines[4], '');
});
