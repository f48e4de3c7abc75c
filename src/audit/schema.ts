/**
 * ClickHouse tables of the append-only facts, declared once and rendered either for one node
 * (MergeTree) or for a cluster (`CLICKHOUSE_CLUSTER`: ReplicatedMergeTree local tables plus a
 * Distributed table of the plain name, which is what the service reads and writes). The
 * rendered DDL is in docs/clickhouse.md.
 */
export interface TableSpec {
  name: string;
  columns: [name: string, type: string][];
  engine: 'MergeTree' | 'ReplacingMergeTree';
  partitionBy: string;
  orderBy: string;
  ttl?: string;
  indexes?: string[];
  /**
   * Aggregate projections: ClickHouse keeps each part's rows also aggregated by these keys and
   * answers a matching GROUP BY from them (the dashboard's analytics, src/audit/analytics.ts).
   */
  projections?: Projection[];
  /** Columns added after the table was first released: added to an existing table at start. */
  added?: string[];
  /** Distributed sharding key: rows that are read together live on one shard. */
  shardBy: string;
}

export interface Projection {
  name: string;
  select: string;
}

export const TABLES: TableSpec[] = [
  {
    name: 'audit_matches',
    columns: [
      ['time', "DateTime64(3, 'UTC')"],
      ['customer_id', 'UInt32'],
      ['payer', 'String'],
      ['request_id', 'String'],
      ['endpoint', 'LowCardinality(String)'],
      ['screened_value', 'String'],
      ['matched_value', 'String'],
      ['list', 'LowCardinality(String)'],
      ['list_type', 'LowCardinality(String)'],
      ['match', 'LowCardinality(String)'],
      ['list_version', 'LowCardinality(String)'],
      ['as_of', "Nullable(DateTime64(3, 'UTC'))"],
    ],
    added: ['list_version', 'as_of'],
    engine: 'MergeTree',
    partitionBy: 'toYYYYMM(time)',
    orderBy: '(customer_id, payer, time, request_id)',
    ttl: 'toDateTime(time) + INTERVAL 5 YEAR',
    indexes: [
      'INDEX screened_value_idx screened_value TYPE bloom_filter(0.01) GRANULARITY 4',
      'INDEX matched_value_idx matched_value TYPE bloom_filter(0.01) GRANULARITY 4',
    ],
    projections: [
      {
        name: 'by_day',
        select:
          'SELECT customer_id, toDate(time), endpoint, list, count(), max(time) GROUP BY customer_id, toDate(time), endpoint, list',
      },
    ],
    shardBy: 'sipHash64(customer_id, payer)',
  },
  {
    name: 'usage',
    columns: [
      ['time', "DateTime64(3, 'UTC')"],
      ['customer_id', 'UInt32'],
      ['payer', 'String'],
      ['request_id', 'String'],
      ['endpoint', 'LowCardinality(String)'],
      ['status', 'UInt16'],
      ['credits', 'UInt32'],
      ['method', "Enum8('quota' = 1, 'x402' = 2)"],
      ['amount', 'UInt64'],
      ['tx_hash', 'String'],
      ['network', 'LowCardinality(String)'],
    ],
    engine: 'MergeTree',
    partitionBy: 'toYYYYMM(time)',
    orderBy: '(customer_id, payer, time, request_id)',
    ttl: 'toDateTime(time) + INTERVAL 3 YEAR',
    projections: [
      {
        name: 'by_day',
        select:
          "SELECT customer_id, toDate(time), endpoint, count(), sum(credits), countIf(method = 'x402') GROUP BY customer_id, toDate(time), endpoint",
      },
    ],
    shardBy: 'sipHash64(customer_id, payer)',
  },
  {
    name: 'list_changes',
    columns: [
      ['seq', 'UInt64'],
      ['change_id', 'String'],
      ['owner', 'UInt32'],
      ['list', 'LowCardinality(String)'],
      ['version', 'String'],
      ['kind', "Enum8('listed' = 1, 'delisted' = 2, 'relisted' = 3)"],
      ['at', "DateTime64(3, 'UTC')"],
      ['entity_type', 'LowCardinality(String)'],
      ['value', 'String'],
      ['metadata', 'String'],
      ['source_url', 'Nullable(String)'],
    ],
    // The changes feed pages through (owner, seq) in order: the primary key finds a cursor's
    // granule at once. A change delivered twice (the loaders' sinks are at-least-once) has the same
    // key, which merges collapse and readers skip (LIMIT 1 BY seq).
    engine: 'ReplacingMergeTree',
    partitionBy: 'intDiv(seq, 10000000)',
    orderBy: '(owner, seq)',
    indexes: [
      'INDEX at_idx at TYPE minmax GRANULARITY 1',
      'INDEX value_idx value TYPE bloom_filter(0.01) GRANULARITY 4',
    ],
    shardBy: 'owner',
  },
  {
    name: 'x402_settlements',
    columns: [
      ['time', "DateTime64(3, 'UTC')"],
      ['request_id', 'String'],
      ['customer_id', 'UInt32'],
      ['payer', 'String'],
      ['endpoint', 'LowCardinality(String)'],
      ['network', 'LowCardinality(String)'],
      ['x402_version', 'UInt8'],
      ['amount', 'UInt64'],
      ['tx_hash', 'String'],
    ],
    engine: 'MergeTree',
    partitionBy: 'toYYYYMM(time)',
    orderBy: '(payer, time, tx_hash)',
    ttl: 'toDateTime(time) + INTERVAL 7 YEAR',
    shardBy: 'sipHash64(payer)',
  },
  {
    // Decisions on alerts (issue #38), copied from the control plane once committed: who decided
    // what, when, on which alert and evidence. Read by customer and time range.
    name: 'alert_decisions',
    columns: [
      ['time', "DateTime64(3, 'UTC')"],
      ['customer_id', 'UInt32'],
      ['alert_id', 'UInt32'],
      ['event', 'LowCardinality(String)'],
      ['status', 'LowCardinality(String)'],
      ['on_version', 'UInt32'],
      ['version', 'UInt32'],
      ['token_id', 'UInt32'],
      ['token_label', 'String'],
      ['comment', 'String'],
      ['screened_value', 'String'],
      ['list', 'LowCardinality(String)'],
      ['listed_party', 'String'],
      ['list_version', 'LowCardinality(String)'],
      ['request_id', 'String'],
      ['evidence', 'String'],
      ['changes', 'String'],
    ],
    engine: 'MergeTree',
    partitionBy: 'toYYYYMM(time)',
    orderBy: '(customer_id, time, alert_id)',
    ttl: 'toDateTime(time) + INTERVAL 7 YEAR',
    shardBy: 'customer_id',
  },
];

/**
 * The spans, in days, of the `value_matches` rollup's blocks: aligned on multiples of the span
 * since 1970-01-01, so any range of whole days is a few blocks (at most two of each span), and
 * 30 days are 4 to 8 blocks instead of 30 days of rows (src/audit/analytics.ts).
 */
export const ROLLUP_SPANS = [1, 2, 4, 8, 16, 32] as const;

/**
 * A table filled by a materialized view from the inserts into `source` (and, when the table is
 * new, from the rows `source` already holds: `migrateClickHouse`, `fillRollups`).
 */
export interface RollupSpec {
  name: string;
  source: string;
  columns: [name: string, type: string][];
  engine: 'AggregatingMergeTree' | 'ReplacingMergeTree';
  partitionBy?: string;
  orderBy: string;
  ttl?: string;
  /** The view's query; `{source}` stands for the source table. */
  select: string;
  shardBy: string;
}

export const ROLLUPS: RollupSpec[] = [
  {
    // Matches per listed value (a 64-bit hash of list and value) per block of days, for one
    // customer (all_customers = 0) and for every customer together (all_customers = 1,
    // customer_id 0): the most matched values of a range are ranked on a few blocks' rows.
    name: 'value_matches',
    source: 'audit_matches',
    columns: [
      ['all_customers', 'UInt8'],
      ['customer_id', 'UInt32'],
      ['days', 'UInt8'],
      ['start', 'Date'],
      ['hash', 'UInt64'],
      ['matches', 'SimpleAggregateFunction(sum, UInt64)'],
      ['last_time', "SimpleAggregateFunction(max, DateTime64(3, 'UTC'))"],
    ],
    engine: 'AggregatingMergeTree',
    partitionBy: 'toYYYYMM(start)',
    orderBy: '(all_customers, customer_id, days, start, hash)',
    ttl: 'start + INTERVAL 5 YEAR',
    // Grouped by day first, then each day's group is counted in the block of every span.
    select: `SELECT all_customers, if(all_customers = 1, 0, c) AS customer_id, days, toDate(intDiv(toUInt16(d), days) * days) AS start, h AS hash,
       sum(n) AS matches, max(last) AS last_time
  FROM (SELECT customer_id AS c, toDate(time) AS d, cityHash64(list, matched_value) AS h, count() AS n, max(time) AS last FROM {source} GROUP BY c, d, h)
 ARRAY JOIN [0, 1] AS all_customers
 ARRAY JOIN [${ROLLUP_SPANS.join(', ')}] AS days
 GROUP BY all_customers, customer_id, days, start, hash`,
    shardBy: 'customer_id',
  },
  {
    // The list and value of each hash of value_matches (one row per listed value ever matched).
    name: 'matched_values',
    source: 'audit_matches',
    columns: [
      ['hash', 'UInt64'],
      ['list', 'LowCardinality(String)'],
      ['matched_value', 'String'],
    ],
    engine: 'ReplacingMergeTree',
    orderBy: 'hash',
    select: `SELECT h AS hash, l AS list, v AS matched_value
  FROM (SELECT cityHash64(list, matched_value) AS h, any(list) AS l, any(matched_value) AS v FROM {source} GROUP BY h)`,
    shardBy: 'hash',
  },
];

/** Projections declared by an earlier release and no longer read: dropped at start. */
export const DROPPED_PROJECTIONS: { table: string; name: string }[] = [
  { table: 'audit_matches', name: 'values_by_day' },
];

/**
 * Projections a table created before they were declared lacks: `[table, projection]` pairs to
 * add, and to build for the parts already written (`ALTER … MATERIALIZE PROJECTION`, a
 * background mutation). `createQuery(table)` is the stored CREATE statement of a table.
 */
export function missingProjections(
  cluster: string | undefined,
  createQuery: (table: string) => string,
): [string, Projection][] {
  return TABLES.flatMap((t) => {
    const table = cluster ? `${t.name}_local` : t.name;
    const ddl = createQuery(table);
    return (t.projections ?? [])
      .filter((p) => !ddl.includes(`PROJECTION ${p.name} `))
      .map((p): [string, Projection] => [table, p]);
  });
}

/** A backquoted identifier (backquotes removed from the name). */
export const ident = (s: string) => `\`${s.replace(/`/g, '')}\``;

/**
 * The column list of a text file holding `columns` of `table` (`db.table` or `table`), for
 * `file()`: the table's types, but `LowCardinality(T)` read as `T`: chDB parses a value into a
 * LowCardinality column several times more slowly than it reads the plain value and converts the
 * column when inserting it (docs/clickhouse.md).
 */
export function fileStructure(table: string, columns: readonly string[]): string {
  const name = table.slice(table.lastIndexOf('.') + 1);
  const spec = TABLES.find((t) => t.name === name);
  if (!spec) throw new Error(`unknown ClickHouse table ${table}`);
  const types = new Map(spec.columns);
  return columns
    .map((c) => {
      const type = types.get(c);
      if (!type) throw new Error(`unknown column ${c} of ${table}`);
      return `${ident(c)} ${type.replace(/^LowCardinality\((.*)\)$/, '$1')}`;
    })
    .join(', ');
}

/**
 * Tables whose key changed since an earlier release, with a column only the new one has: an
 * existing table without it is renamed to `<name>_legacy` (kept, no longer written) at start,
 * and the new one is created in its place. `list_changes` was keyed by value; the changes feed
 * needs its ingest sequence.
 */
export const REKEYED: { table: string; column: string }[] = [{ table: 'list_changes', column: 'seq' }];

/** CREATE statements for the database and every table, idempotent (IF NOT EXISTS), then the added columns. */
export function renderDdl(database: string, cluster?: string): string[] {
  const db = ident(database);
  const on = cluster ? ` ON CLUSTER ${ident(cluster)}` : '';
  const out = [`CREATE DATABASE IF NOT EXISTS ${db}${on}`];
  for (const t of TABLES) {
    const body = [
      ...t.columns.map(([n, ty]) => `  ${ident(n)} ${ty}`),
      ...(t.indexes ?? []).map((i) => `  ${i}`),
      ...(t.projections ?? []).map((p) => `  PROJECTION ${p.name} (${p.select})`),
    ].join(',\n');
    const local = cluster ? `${t.name}_local` : t.name;
    const engine = cluster
      ? `Replicated${t.engine}('/clickhouse/tables/{shard}/${database}/${local}', '{replica}')`
      : t.engine;
    out.push(
      [
        `CREATE TABLE IF NOT EXISTS ${db}.${ident(local)}${on} (\n${body}\n)`,
        `ENGINE = ${engine}`,
        `PARTITION BY ${t.partitionBy}`,
        `ORDER BY ${t.orderBy}`,
        ...(t.ttl ? [`TTL ${t.ttl}`] : []),
      ].join('\n'),
    );
    if (cluster) {
      out.push(
        `CREATE TABLE IF NOT EXISTS ${db}.${ident(t.name)}${on} AS ${db}.${ident(local)}\n` +
          `ENGINE = Distributed(${ident(cluster)}, ${db}, ${ident(local)}, ${t.shardBy})`,
      );
    }
    const added = (t.added ?? []).map(
      (name) => `ADD COLUMN IF NOT EXISTS ${ident(name)} ${t.columns.find(([n]) => n === name)![1]}`,
    );
    if (added.length > 0) {
      for (const table of cluster ? [local, t.name] : [t.name])
        out.push(`ALTER TABLE ${db}.${ident(table)}${on} ${added.join(', ')}`);
    }
  }
  for (const r of ROLLUPS) {
    const local = cluster ? `${r.name}_local` : r.name;
    const engine = cluster
      ? `Replicated${r.engine}('/clickhouse/tables/{shard}/${database}/${local}', '{replica}')`
      : r.engine;
    out.push(
      [
        `CREATE TABLE IF NOT EXISTS ${db}.${ident(local)}${on} (\n${r.columns.map(([n, ty]) => `  ${ident(n)} ${ty}`).join(',\n')}\n)`,
        `ENGINE = ${engine}`,
        ...(r.partitionBy ? [`PARTITION BY ${r.partitionBy}`] : []),
        `ORDER BY ${r.orderBy}`,
        ...(r.ttl ? [`TTL ${r.ttl}`] : []),
      ].join('\n'),
    );
    if (cluster) {
      out.push(
        `CREATE TABLE IF NOT EXISTS ${db}.${ident(r.name)}${on} AS ${db}.${ident(local)}\n` +
          `ENGINE = Distributed(${ident(cluster)}, ${db}, ${ident(local)}, ${r.shardBy})`,
      );
    }
    // On a cluster each node's view reads the inserts into its own shard of the source.
    const source = `${db}.${ident(cluster ? `${r.source}_local` : r.source)}`;
    out.push(
      `CREATE MATERIALIZED VIEW IF NOT EXISTS ${db}.${ident(`${r.name}_mv`)}${on} TO ${db}.${ident(local)}\nAS ${r.select.replace('{source}', source)}`,
    );
  }
  return out;
}

/**
 * The statement filling a rollup table with one month (`toYYYYMM`) of the rows its source held
 * before `before` (epoch ms): the view's query over those rows, on one thread (the service keeps
 * serving meanwhile).
 */
export function rollupBackfill(database: string, r: RollupSpec, before: number, month: number): string {
  const db = ident(database);
  const rows = `(SELECT * FROM ${db}.${ident(r.source)} WHERE toYYYYMM(time) = ${Math.trunc(month)} AND time < fromUnixTimestamp64Milli(toInt64(${Math.trunc(before)}), 'UTC'))`;
  return `INSERT INTO ${db}.${ident(r.name)}\n${r.select.replace('{source}', rows)}\nSETTINGS max_threads = 1`;
}
