import { call, client } from '../lib/api';
import { settled } from '../lib/jobs';
import { PageHeader } from '../components/ui';
import { UploadedLists, type UploadedListsApi } from '../components/uploaded-lists';

const job = (job_id: number) => call(client.GET('/api/v1/account/lists/jobs/{job_id}', { params: { path: { job_id } } }));

const API: UploadedListsApi = {
  idLabel: 'Name',
  idHint: 'Lower-case letters, digits, underscores; the list’s slug is c<your id>.<name>.',
  list: () => call(client.GET('/api/v1/account/lists')),
  create: (l) =>
    settled(
      call(client.POST('/api/v1/account/lists', { body: { name: l.id, display_name: l.display_name, list_type: l.list_type, entity_types: l.entity_types, in_default_set: l.in_default_set } })),
      job,
    ),
  upload: (slug, file, type) =>
    settled(
      call(
        client.POST('/api/v1/account/lists/{slug}/upload', {
          params: { path: { slug } },
          body: file as unknown as string,
          bodySerializer: (b: unknown) => b as BodyInit,
          headers: { 'Content-Type': type },
        }),
      ),
      job,
    ),
  remove: (slug) => settled(call(client.DELETE('/api/v1/account/lists/{slug}', { params: { path: { slug } } })), job),
};

/** The customer's private lists: screened only for this customer (by default, or when named), never shown to others. */
export default function PrivateLists() {
  return (
    <>
      <PageHeader title="Private lists" />
      <p class="muted">
        Lists of your own (e.g. customers you have offboarded): your screening requests check them beside the public lists, and only you see them. Screening against them is metered like any screening.
      </p>
      <UploadedLists api={API} title="Your lists" />
    </>
  );
}
