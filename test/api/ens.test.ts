import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { namehash, type Address } from 'viem';
import { startChain, type Deployed, type LocalChain } from '../support/chain.js';
import { startTestService, createCustomerToken, type TestService } from '../../harness/service.js';
import { FIXTURES } from '../../harness/paths.js';

/**
 * ENS names on /screen/crypto against a real local chain with a test Universal Resolver: the
 * response's value is the resolved address; an unresolvable name is a 422 on the path; resolutions
 * are cached; an unreachable RPC is a 503.
 */
const SANCTIONED = '0x01e2919679362dFBC9ee1644Ba9C6da6D6245BB1';
let chain: LocalChain;
let resolver: Deployed;
let svc: TestService;
let auth: Record<string, string>;

async function setAddr(name: string, a: Address): Promise<void> {
  const hash = await chain.walletClient(chain.accounts[0]).writeContract({
    address: resolver.address,
    abi: resolver.abi as never,
    functionName: 'setAddr' as never,
    args: [namehash(name), a] as never,
    account: chain.accounts[0],
    chain: chain.chain,
  });
  await chain.publicClient.waitForTransactionReceipt({ hash });
}

before(async () => {
  chain = await startChain();
  resolver = await chain.deploy(
    readFileSync(join(FIXTURES, 'contracts', 'TestUniversalResolver.sol'), 'utf8'),
    'TestUniversalResolver',
  );
  await setAddr('sanctioned.eth', SANCTIONED);
  await setAddr('clean.eth', '0x000000000000000000000000000000000000dEaD');
  svc = await startTestService({
    ETH_RPC_URL: chain.rpcUrl,
    ENS_UNIVERSAL_RESOLVER: resolver.address,
    ENS_CACHE_TTL_SECONDS: '300',
  });
  auth = { authorization: `Bearer ${(await createCustomerToken(svc.url, 100)).token}` };
});
after(async () => {
  await svc?.close();
  await chain?.stop();
});

const screen = async (name: string) => {
  const res = await fetch(`${svc.url}/api/v1/screen/crypto/${encodeURIComponent(name)}?lists=ofac_crypto`, {
    headers: auth,
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
};

test('a name resolving to a sanctioned address: value is the resolved address, matched exactly', async () => {
  const { status, body } = await screen('Sanctioned.ETH');
  assert.equal(status, 200);
  assert.equal(body.value, SANCTIONED);
  assert.equal(body.sanctioned, true);
  assert.deepEqual(
    (body.matches as { match: string; value: string }[]).map((m) => [m.match, m.value]),
    [['exact', SANCTIONED]],
  );
  const clean = await screen('clean.eth');
  assert.deepEqual(clean.body, {
    value: '0x000000000000000000000000000000000000dEaD',
    flagged: false,
    sanctioned: false,
    lists_checked: ['ofac_crypto'],
    matches: [],
  });
});

test('a name without an address is a 422 on ["path","address"]', async () => {
  const { status, body } = await screen('nobody.eth');
  assert.equal(status, 422);
  assert.deepEqual(body, {
    detail: [
      {
        type: 'value_error',
        loc: ['path', 'address'],
        msg: 'Value error, ENS name nobody.eth does not resolve to an address',
        input: 'nobody.eth',
        ctx: { error: 'ENS name nobody.eth does not resolve to an address' },
      },
    ],
  });
  const invalid = await screen('bad..eth');
  assert.equal(invalid.status, 422);
  assert.equal((invalid.body.detail as { type: string }[])[0].type, 'value_error');
});

test('resolutions are cached; with the RPC gone a new name is a 503, not a 422 or 500', async () => {
  await chain.stop();
  const cached = await screen('sanctioned.eth');
  assert.equal(cached.status, 200);
  assert.equal(cached.body.value, SANCTIONED);
  const fresh = await screen('other.eth');
  assert.equal(fresh.status, 503);
  assert.deepEqual(fresh.body, { detail: 'ENS resolution is unavailable: the Ethereum RPC did not answer' });
});
