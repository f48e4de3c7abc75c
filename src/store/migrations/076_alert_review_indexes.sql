-- The review list of issue #38 at a million alerts per customer: every sort path has an index, a
-- substring search (`text`) a trigram index, and the export a stable order (docs/alerts.md).

-- Trigrams serve `ILIKE '%…%'` from a GIN index. pg_trgm is a trusted contrib extension: the
-- database owner may create it (Debian's postgresql package ships it; PGlite loads it in
-- src/store/pglite.ts).
CREATE EXTENSION IF NOT EXISTS pg_trgm;
CREATE INDEX alerts_text ON alerts USING gin (screened_value gin_trgm_ops, matched_value gin_trgm_ops);

-- sort=score: the highest scores first (a backward scan gives the lowest first), newest among equals.
CREATE INDEX alerts_customer_score ON alerts (customer_id, score DESC, last_seen DESC, id DESC);
CREATE INDEX alerts_customer_status_score ON alerts (customer_id, status, score DESC, last_seen DESC, id DESC);

-- The export pages by id: an alert seen again while it is read does not move in that order.
CREATE INDEX alerts_customer_id ON alerts (customer_id, id);
