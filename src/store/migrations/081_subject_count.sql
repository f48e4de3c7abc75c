-- Issue #39: the size of each customer's book, kept by the subject store in the statement that adds
-- or deletes subjects, so that SUBJECTS_PER_CUSTOMER is checked without counting a million rows on
-- every import batch.
ALTER TABLE customers ADD COLUMN subject_count integer NOT NULL DEFAULT 0 CHECK (subject_count >= 0);
