import { PageHeader } from '../components/ui';
import { UploadedLists } from '../components/uploaded-lists';

/** The customer's private lists: screened only for this customer (by default, or when named), never shown to others. */
export default function PrivateLists() {
  return (
    <>
      <PageHeader title="Private lists" />
      <p class="muted">
        Lists of your own (e.g. customers you have offboarded): your screening requests check them beside the public
        lists, and only you see them. Screening against them is metered like any screening.
      </p>
      <UploadedLists owner="account" title="Your lists" />
    </>
  );
}
