-- Each node's share of a customer's month, so that a crash can be settled (docs/billing.md, "Crashes").
-- `node`: the node's id, kept in its DATA_DIR across restarts. `leased`: credits leased to the node
--   minus those it gave back; `used`: consumption it wrote. A node that stops gracefully ends with
--   leased = used; a crash leaves leased > used, which the node's restart settles from its usage rows.
CREATE TABLE quota_leases (
  node        text NOT NULL,
  customer_id integer NOT NULL REFERENCES customers (id) ON DELETE CASCADE,
  month       text NOT NULL CHECK (month ~ '^[0-9]{4}-[0-9]{2}$'),
  leased      integer NOT NULL DEFAULT 0 CHECK (leased >= 0),
  used        integer NOT NULL DEFAULT 0 CHECK (used >= 0),
  PRIMARY KEY (node, customer_id, month)
);

-- Bumped by every change of a customer's quota (own quota, plan, plan's quota): a lease taken under
-- an older generation is given back instead of spent (src/billing/quota.ts, `revoke`).
ALTER TABLE customers ADD COLUMN quota_generation integer NOT NULL DEFAULT 0;
