-- Issue #39, watching the books: the book sink takes a delivery batch by recording the run with
-- its changes and screens the books in the background, so the list manager's other sinks (the
-- changes feed, the webhook outbox) do not wait for a run over millions of subjects. A run the
-- leader did not finish is resumed from these changes at its next start. NULL: a run recorded
-- before this migration, whose batch the list manager delivers again.
ALTER TABLE book_runs ADD COLUMN changes jsonb;
CREATE INDEX book_runs_running ON book_runs (started_at, first_seq) WHERE state = 'running';
