import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pino } from 'pino';
import { PaymentRefused } from '../../../src/billing/x402/decode.js';
import { MemoryNonceStore } from '../../../src/billing/x402/nonces.js';
import { AuthorizationReservations, nonceKey } from '../../../src/billing/x402/reservations.js';

const log = pino({ level: 'silent' });

/** Checks that `attempt` was refused as a payment, with `message` (what the challenge tells the client). */
async function refused(attempt: Promise<unknown>, message: string): Promise<void> {
  await assert.rejects(attempt, (err) => err instanceof PaymentRefused && err.message === message);
}

test('nonceKey: one key per network, token, payer and nonce, case-insensitive', () => {
  const payment = { authorization: { from: '0xAbC', nonce: '0xDeF' } } as const;
  assert.equal(
    nonceKey({ caip2: 'eip155:84532', asset: '0x036CbD53842c5426634e7929541eC2318f3dCF7e' }, payment),
    'eip155:84532:0x036cbd53842c5426634e7929541ec2318f3dcf7e:0xabc:0xdef',
  );
});

test('an authorization is held by one request at a time; freed, it is usable again; settled, never', async () => {
  let now = 1_000;
  const store = new MemoryNonceStore(() => now);
  const reservations = new AuthorizationReservations(store, () => now, log);
  await reservations.reserve('k', 2_000);
  await refused(
    reservations.reserve('k', 2_000),
    'authorization is already being used by another request, sign a fresh one',
  );
  await reservations.free('k');
  await reservations.reserve('k', 2_000);
  await reservations.markSettled('k', 2_000, '0xtx');
  await refused(reservations.reserve('k', 2_000), 'authorization already used, sign a fresh one');
  // Another node's reservation shows only in the shared store.
  const otherNode = new AuthorizationReservations(store, () => now, log);
  await refused(otherNode.reserve('k', 2_000), 'authorization already used or in use, sign a fresh one');
  // Past its expiry the authorization is forgotten here and in the store (the chain refuses it anyway).
  now = 3_000;
  await reservations.reserve('k', 4_000);
});
