-- Outcomes of metered requests sent with an Idempotency-Key (docs/idempotency.md): a retry with the
-- same key from the same customer or payer gets the stored answer, charged and audited once.
-- scope = 'customer:<id>' or 'payer:<address>'; fingerprint = sha256 of the endpoint and its
-- validated input; payment_digest = sha256 of the x402 payment header that paid for it.
CREATE TABLE IF NOT EXISTS idempotency_keys (
  scope          text NOT NULL,
  key            text NOT NULL,
  fingerprint    text NOT NULL,
  state          text NOT NULL CHECK (state IN ('running', 'done')),
  payment_digest text,
  headers        jsonb,
  body           text,
  claimed_at     timestamptz NOT NULL DEFAULT now(),
  created_at     timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (scope, key)
);
CREATE INDEX IF NOT EXISTS idempotency_keys_payment ON idempotency_keys (payment_digest, key) WHERE payment_digest IS NOT NULL;
CREATE INDEX IF NOT EXISTS idempotency_keys_created_at ON idempotency_keys (created_at);
