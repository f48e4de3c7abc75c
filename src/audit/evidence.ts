/**
 * The listing a stored match shows: its `metadata` and `source_url` as the answer gave them. A
 * PEP candidate has no metadata object (the candidate is the record): it is its own metadata.
 */
export function evidenceListing(evidence: Readonly<Record<string, unknown>>): {
  metadata: Record<string, unknown>;
  source_url: string | null;
} {
  const { source_url, metadata, ...rest } = evidence;
  return {
    metadata:
      typeof metadata === 'object' && metadata !== null && !Array.isArray(metadata)
        ? (metadata as Record<string, unknown>)
        : rest,
    source_url: typeof source_url === 'string' ? source_url : null,
  };
}
