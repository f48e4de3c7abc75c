/** The dashboard address of a subject's page (an external id may hold any character, `/` too). */
export function subjectHref(externalId: string): string {
  return `/dashboard/subjects/${encodeURIComponent(externalId)}`;
}
