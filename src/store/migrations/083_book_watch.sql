-- Issue #39, watching the books: a list version's changes reach the books in delivery batches
-- (loaders/manager.ts DELIVERY_BATCH), so a run is one batch of one version, named by the
-- sequence number of its first change; and a subject's new alert is a webhook event of its own.

ALTER TABLE book_runs ADD COLUMN first_seq bigint NOT NULL DEFAULT 0;
ALTER TABLE book_runs DROP CONSTRAINT book_runs_pkey;
ALTER TABLE book_runs ADD PRIMARY KEY (list, version, first_seq);

ALTER TABLE webhook_events DROP CONSTRAINT webhook_events_type_check;
ALTER TABLE webhook_events ADD CONSTRAINT webhook_events_type_check
  CHECK (type IN ('entity.listed', 'entity.delisted', 'entity.relisted', 'subject.alert', 'test'));
-- A `subject.alert`'s subject and alert: {"external_id", "type", "names", "alert_id", "score"}.
ALTER TABLE webhook_events ADD COLUMN subject jsonb;
