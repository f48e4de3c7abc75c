-- Issue #38: an alert is about a listed party or entity (a name match's party id, else the listed
-- value), keeps the whole evidence of its latest match and its score, and may come from a
-- monitored subject (issue #39).

ALTER TABLE alerts
  ADD COLUMN listed_key text,
  -- The match as the answer gave it (value, list, metadata, source_url, score, explanation).
  ADD COLUMN evidence   jsonb NOT NULL DEFAULT '{}',
  ADD COLUMN score      double precision NOT NULL DEFAULT 1 CHECK (score >= 0 AND score <= 1),
  -- The monitored subject the match came from (issue #39); null for a screening.
  ADD COLUMN subject    jsonb;

UPDATE alerts SET listed_key = matched_value;
ALTER TABLE alerts ALTER COLUMN listed_key SET NOT NULL;
ALTER TABLE alerts DROP CONSTRAINT alerts_customer_id_screened_value_list_matched_value_key;
ALTER TABLE alerts ADD CONSTRAINT alerts_one_per_listed UNIQUE (customer_id, screened_value, list, listed_key);
