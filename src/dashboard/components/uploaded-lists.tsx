import { useState } from 'preact/hooks';
import { call, client, type Schemas } from '../lib/api';
import { count, dateTime } from '../lib/format';
import { jobSummary, settled, type ListJob } from '../lib/jobs';
import { useApi } from '../lib/use-api';
import { Alert, Async, DataTable, Dialog, DialogActions, Field, useAction } from './ui';

type UploadedList = Schemas['UploadedList'];
type EntityType = UploadedList['entity_types'][number];
type ListType = UploadedList['list_type'];

const ENTITY_TYPES: { type: EntityType; label: string }[] = [
  { type: 'crypto_address', label: 'Crypto addresses' },
  { type: 'email', label: 'E-mail addresses' },
  { type: 'email_domain', label: 'E-mail domains' },
  { type: 'website', label: 'Websites' },
  { type: 'government_id', label: 'Government IDs' },
  { type: 'name', label: 'Names' },
  { type: 'country', label: 'Countries' },
];
const LIST_TYPES: ListType[] = ['sanctions', 'crime', 'risk'];

/** The upload formats the API takes, chosen from the file's name. */
const FORMATS: { type: string; label: string; ext: RegExp }[] = [
  { type: 'text/csv', label: 'CSV (entity_type,value,metadata)', ext: /\.csv$/i },
  { type: 'application/x-ndjson', label: 'NDJSON (one object per line)', ext: /\.(ndjson|jsonl)$/i },
  { type: 'application/json', label: 'JSON array', ext: /\.json$/i },
];

interface NewList {
  /** The operator's slug, or the customer's name in its namespace. */
  id: string;
  display_name: string;
  list_type: ListType;
  entity_types: EntityType[];
  in_default_set: boolean;
}

/** Whose lists: the operator's (`/admin/lists`) or the signed-in customer's private lists (`/account/lists`). */
export type ListOwner = 'admin' | 'account';

/** A list job of the owner's, waited for until it ends. */
export const listJob = (owner: ListOwner) => (job_id: number) =>
  call(client.GET(`/api/v1/${owner}/lists/jobs/{job_id}`, { params: { path: { job_id } } }));

/** The calls behind an uploaded-lists section; every change is a list job waited for. */
interface UploadedListsApi {
  /** How the form names the list's identifier. */
  idLabel: string;
  idHint: string;
  list(): Promise<UploadedList[]>;
  create(l: NewList): Promise<ListJob>;
  upload(slug: string, file: File, type: string): Promise<ListJob>;
  remove(slug: string): Promise<ListJob>;
}

function listsApi(owner: ListOwner): UploadedListsApi {
  const job = listJob(owner);
  return {
    ...(owner === 'admin'
      ? { idLabel: 'Slug', idHint: '3-48 lower-case letters, digits, underscores, starting with a letter.' }
      : { idLabel: 'Name', idHint: 'Lower-case letters, digits, underscores; the list’s slug is c<your id>.<name>.' }),
    list: () => call(client.GET(`/api/v1/${owner}/lists`)),
    create: ({ id, ...l }) =>
      settled(
        call(
          owner === 'admin'
            ? client.POST('/api/v1/admin/lists', { body: { slug: id, ...l } })
            : client.POST('/api/v1/account/lists', { body: { name: id, ...l } }),
        ),
        job,
      ),
    upload: (slug, file, type) =>
      settled(
        call(
          client.POST(`/api/v1/${owner}/lists/{slug}/upload`, {
            params: { path: { slug } },
            body: file as unknown as string,
            bodySerializer: (b: unknown) => b as BodyInit,
            headers: { 'Content-Type': type },
          }),
        ),
        job,
      ),
    remove: (slug) =>
      settled(call(client.DELETE(`/api/v1/${owner}/lists/{slug}`, { params: { path: { slug } } })), job),
  };
}

function CreateList({ api, onCreated }: { api: UploadedListsApi; onCreated: (message: string) => void }) {
  const empty: NewList = {
    id: '',
    display_name: '',
    list_type: 'risk',
    entity_types: ['crypto_address'],
    in_default_set: true,
  };
  const [draft, setDraft] = useState<NewList>(empty);
  const action = useAction();
  const toggle = (t: EntityType) =>
    setDraft((d) => ({
      ...d,
      entity_types: d.entity_types.includes(t) ? d.entity_types.filter((x) => x !== t) : [...d.entity_types, t],
    }));
  const submit = (e: Event) => {
    e.preventDefault();
    void action.run(async () => {
      const job = await api.create({ ...draft, id: draft.id.trim(), display_name: draft.display_name.trim() });
      setDraft(empty);
      onCreated(`Created ${job.list ?? draft.id}: upload its entries.`);
    });
  };
  return (
    <form class="card" onSubmit={submit} aria-labelledby="create-list-title">
      <h2 id="create-list-title">Create a list</h2>
      <div class="form-row">
        <Field label={api.idLabel} hint={api.idHint}>
          <input
            required
            value={draft.id}
            maxLength={48}
            pattern="[a-z][a-z0-9_]*"
            onInput={(e) => setDraft({ ...draft, id: e.currentTarget.value })}
          />
        </Field>
        <Field label="Display name">
          <input
            required
            value={draft.display_name}
            maxLength={200}
            onInput={(e) => setDraft({ ...draft, display_name: e.currentTarget.value })}
          />
        </Field>
        <Field label="List type">
          <select
            value={draft.list_type}
            onChange={(e) => setDraft({ ...draft, list_type: e.currentTarget.value as ListType })}
          >
            {LIST_TYPES.map((t) => (
              <option key={t} value={t}>
                {t}
              </option>
            ))}
          </select>
        </Field>
      </div>
      <fieldset class="choice wrap">
        <legend>Entity types it holds</legend>
        {ENTITY_TYPES.map((t) => (
          <label key={t.type}>
            <input type="checkbox" checked={draft.entity_types.includes(t.type)} onChange={() => toggle(t.type)} />{' '}
            {t.label}
          </label>
        ))}
      </fieldset>
      <fieldset class="choice stack">
        <legend class="sr-only">Default set</legend>
        <label>
          <input
            type="checkbox"
            checked={draft.in_default_set}
            onChange={() => setDraft({ ...draft, in_default_set: !draft.in_default_set })}
          />{' '}
          Screened when a request names no lists
        </label>
      </fieldset>
      <button type="submit" disabled={action.busy || draft.entity_types.length === 0}>
        {action.busy ? 'Creating…' : 'Create list'}
      </button>
      {action.error ? <Alert kind="error">{action.error}</Alert> : null}
    </form>
  );
}

function Upload({
  api,
  list,
  onDone,
  onClose,
}: {
  api: UploadedListsApi;
  list: UploadedList;
  onDone: (message: string) => void;
  onClose: () => void;
}) {
  const [file, setFile] = useState<File | null>(null);
  const [type, setType] = useState(FORMATS[0].type);
  const action = useAction();
  const submit = (e: Event) => {
    e.preventDefault();
    if (!file) return;
    void action.run(async () => {
      const job = await api.upload(list.slug, file, type);
      onDone(jobSummary(job) || `${list.slug}: uploaded.`);
    });
  };
  return (
    <Dialog title={`Upload entries to ${list.display_name}`} onClose={onClose}>
      <form onSubmit={submit}>
        <p class="muted small">
          The file replaces the list’s content: values not in it are delisted. Each row is checked; the first bad row
          rejects the whole file and the list stays as it was.
        </p>
        <div class="form-row">
          <Field label="File">
            <input
              type="file"
              required
              accept=".csv,.json,.ndjson,.jsonl"
              onChange={(e) => {
                const f = e.currentTarget.files?.[0] ?? null;
                setFile(f);
                const known = f ? FORMATS.find((x) => x.ext.test(f.name)) : undefined;
                if (known) setType(known.type);
              }}
            />
          </Field>
          <Field label="Format">
            <select value={type} onChange={(e) => setType(e.currentTarget.value)}>
              {FORMATS.map((f) => (
                <option key={f.type} value={f.type}>
                  {f.label}
                </option>
              ))}
            </select>
          </Field>
        </div>
        <button type="submit" disabled={action.busy || !file}>
          {action.busy ? 'Uploading…' : 'Upload'}
        </button>
        {action.error ? <Alert kind="error">{action.error}</Alert> : null}
      </form>
    </Dialog>
  );
}

/** Uploaded lists, the operator's or a customer's: create, upload a file of entries (replacing the content), delete. */
export function UploadedLists({ owner, title }: { owner: ListOwner; title: string }) {
  const api = listsApi(owner);
  const lists = useApi(() => api.list(), [owner]);
  const [notice, setNotice] = useState<string | null>(null);
  const [uploading, setUploading] = useState<UploadedList | null>(null);
  const [deleting, setDeleting] = useState<UploadedList | null>(null);
  const action = useAction();
  const done = (message: string) => {
    setNotice(message);
    setUploading(null);
    setDeleting(null);
    lists.reload();
  };
  const remove = (l: UploadedList) =>
    action.run(async () => {
      await api.remove(l.slug);
      done(`Deleted ${l.slug}.`);
    });
  return (
    <>
      {notice ? <Alert kind="success">{notice}</Alert> : null}
      {action.error ? <Alert kind="error">{action.error}</Alert> : null}
      <section class="card" aria-labelledby="uploaded-lists-title">
        <h2 id="uploaded-lists-title">{title}</h2>
        <Async state={lists}>
          {(rows) => (
            <DataTable
              rows={rows}
              rowKey={(l) => l.slug}
              empty="No lists yet."
              scroll={title}
              columns={[
                {
                  header: 'List',
                  cell: (l) => (
                    <>
                      {l.display_name} <span class="muted small">{l.slug}</span>
                    </>
                  ),
                },
                { header: 'Type', cell: (l) => l.list_type },
                { header: 'Holds', cell: (l) => l.entity_types.join(', ') },
                { header: 'Default set', cell: (l) => (l.in_default_set ? 'yes' : 'no') },
                { header: 'Entities', kind: 'num', cell: (l) => count(l.total) },
                { header: 'Version', kind: 'value', cell: (l) => l.version ?? '—' },
                { header: 'Last change', cell: (l) => dateTime(l.last_updated) },
                {
                  header: 'Actions',
                  kind: 'actions',
                  cell: (l) => (
                    <>
                      <button
                        type="button"
                        class="secondary"
                        onClick={() => setUploading(l)}
                        aria-label={`Upload to ${l.slug}`}
                      >
                        Upload
                      </button>{' '}
                      <button
                        type="button"
                        class="danger"
                        onClick={() => setDeleting(l)}
                        aria-label={`Delete ${l.slug}`}
                      >
                        Delete
                      </button>
                    </>
                  ),
                },
              ]}
            />
          )}
        </Async>
      </section>
      <CreateList api={api} onCreated={done} />
      {uploading ? <Upload api={api} list={uploading} onDone={done} onClose={() => setUploading(null)} /> : null}
      {deleting ? (
        <Dialog title="Delete this list?" onClose={() => setDeleting(null)}>
          <p>
            <span class="value">{deleting.display_name}</span> ({deleting.slug}) and its {count(deleting.total)} entries
            will no longer be screened.
          </p>
          <DialogActions
            label="Delete list"
            danger
            busy={action.busy}
            onConfirm={() => void remove(deleting)}
            onCancel={() => setDeleting(null)}
          />
        </Dialog>
      ) : null}
    </>
  );
}
