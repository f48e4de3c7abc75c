/**
 * The one vocabulary of OpenAPI tags: each operation has exactly one of these, and /docs groups
 * the operations by them in this order (buildOpenApiDocument refuses any other tag).
 */
export const TAGS = {
  screening:
    'Metered screening of one value or a batch: crypto addresses and ENS names, e-mails, websites, government IDs, countries, PEPs.',
  'ip-intelligence': 'Metered IP lookups: VPN, proxy, Tor and datacenter ranges, geolocation.',
  lists: 'Public: the source lists, their entities, counts and delistings.',
  search: 'Public: free fuzzy or regex search over every list.',
  account:
    'A customer’s own account with a token of scope `dashboard`: quota, tokens, usage, audit trail, plan requests.',
  analytics: 'Aggregates of the audit trail and usage behind the dashboard’s charts; the operator’s across customers.',
  monitoring: 'A customer’s monitored values and webhook endpoints.',
  alerts: 'A customer’s alerts from metered matches: review, decisions under a version check, history.',
  admin: 'The operator (ADMIN_KEY or an operator session): customers, plans, tokens, plan requests, lists, health.',
} as const;

/** The document's `tags` list, in the order above. */
export function openApiTags(): { name: string; description: string }[] {
  return Object.entries(TAGS).map(([name, description]) => ({ name, description }));
}
