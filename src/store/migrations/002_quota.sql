-- Monthly quota accounting, one row per customer and UTC calendar month ('YYYY-MM').
-- `leased`: credits handed to nodes (consumed or still held in a node's memory); a lease never
--   takes `leased` beyond `quota`, so nodes together never spend more than the quota.
-- `used`: credits consumed by successful requests, flushed by the nodes every second or so.
-- `quota`: the quota in force at the last lease; `last_grant`: credits the last lease granted
--   (read back by the same statement that takes it).
CREATE TABLE quota_usage (
  customer_id integer NOT NULL REFERENCES customers (id) ON DELETE CASCADE,
  month       text NOT NULL CHECK (month ~ '^[0-9]{4}-[0-9]{2}$'),
  quota       integer NOT NULL CHECK (quota >= 0),
  leased      integer NOT NULL DEFAULT 0 CHECK (leased >= 0),
  used        integer NOT NULL DEFAULT 0 CHECK (used >= 0),
  last_grant  integer NOT NULL DEFAULT 0,
  updated_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (customer_id, month)
);
