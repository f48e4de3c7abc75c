import { call, client } from './api';

/** A list a customer can name in a filter or a screening. */
export interface ListChoice {
  slug: string;
  display_name: string;
}

/**
 * The lists a customer can pick: the enabled public lists, then the customer's private lists
 * (which /screen/lists, being public, never shows). A token that cannot read the account still
 * gets the public ones.
 */
export async function listChoices(): Promise<ListChoice[]> {
  const [catalog, own] = await Promise.all([
    call(client.GET('/api/v1/screen/lists')),
    call(client.GET('/api/v1/account/lists')).catch(() => []),
  ]);
  return [...catalog.filter((l) => l.enabled), ...own];
}
