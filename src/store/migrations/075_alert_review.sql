-- Issue #38: decisions that hold. A decision keeps the listed party's record as it was reviewed, so
-- a false positive stays quiet until the party changes in a later list version; an optional
-- four-eyes rule makes `confirmed` and `false_positive` proposals until a second token approves.

ALTER TABLE customers ADD COLUMN four_eyes boolean NOT NULL DEFAULT false;

ALTER TABLE alerts
  -- The listed party's record of the latest match (src/alerts/party.ts) and its fingerprint.
  ADD COLUMN party               jsonb,
  ADD COLUMN party_fingerprint   text,
  -- The record as it was when the alert was last decided (or a change to it was last recorded).
  ADD COLUMN decided_party       jsonb,
  ADD COLUMN decided_fingerprint text,
  -- A four-eyes proposal waiting for a second token's approval.
  ADD COLUMN pending_status      text CHECK (pending_status IN ('confirmed', 'false_positive')),
  ADD COLUMN pending_comment     text,
  ADD COLUMN pending_token_id    integer,
  ADD COLUMN pending_token_label text,
  ADD COLUMN pending_at          timestamptz,
  ADD CONSTRAINT alerts_pending_whole
    CHECK ((pending_status IS NULL) = (pending_token_id IS NULL AND pending_at IS NULL));

-- Events: `proposal` and `approval` of four-eyes; `reopened` (a false positive or closed alert the
-- system opened again) and `party_changed` (a confirmed alert's party changed) are the system's:
-- token_id 0, a token no analyst has, labelled 'system', with what changed in `changes`.
ALTER TABLE alert_events ADD COLUMN changes jsonb;
ALTER TABLE alert_events DROP CONSTRAINT alert_events_kind_check;
ALTER TABLE alert_events DROP CONSTRAINT alert_events_check;
ALTER TABLE alert_events ADD CONSTRAINT alert_events_kind_check
  CHECK (kind IN ('decision', 'comment', 'proposal', 'approval', 'reopened', 'party_changed'));
ALTER TABLE alert_events ADD CONSTRAINT alert_events_comment_check
  CHECK ((kind = 'comment') = (status IS NULL AND on_version IS NULL));
ALTER TABLE alert_events ADD CONSTRAINT alert_events_system_check
  CHECK ((token_id = 0) = (kind IN ('reopened', 'party_changed'))
         AND (token_id <> 0 OR token_label = 'system'));
