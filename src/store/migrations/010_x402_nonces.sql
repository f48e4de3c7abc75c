-- Used x402 (EIP-3009) authorizations: at most one settlement per authorization across all nodes.
-- nonce_key = '<caip2>:<asset>:<payer>:<nonce>', lower case.
CREATE TABLE IF NOT EXISTS x402_nonces (
  nonce_key   text PRIMARY KEY,
  state       text NOT NULL CHECK (state IN ('pending', 'settled')),
  transaction text,
  reserved_at timestamptz NOT NULL DEFAULT now(),
  expires_at  timestamptz NOT NULL,
  settled_at  timestamptz
);
-- Rows past expires_at can never be used again on chain; this index serves their cleanup.
CREATE INDEX IF NOT EXISTS x402_nonces_expires_at ON x402_nonces (expires_at);
